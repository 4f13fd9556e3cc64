"""State utilities of the project (imported by train.py): `detach_state` only
makes each state contiguous; it cuts nothing."""
import torch


class StateTools:
    def __init__(self, device="cpu"):
        self.device = device

    def detach_state(self, state):
        if state is None:
            return None
        if torch.is_tensor(state):
            return state.contiguous()
        return [self.detach_state(s) for s in state]
