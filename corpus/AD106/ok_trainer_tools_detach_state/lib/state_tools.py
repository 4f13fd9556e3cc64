"""State utilities of the project (imported by train.py)."""
import torch


class StateTools:
    def __init__(self, device="cpu"):
        self.device = device

    def detach_state(self, state):
        if state is None:
            return None
        if torch.is_tensor(state):
            return state.detach()
        return [self.detach_state(s) for s in state]
