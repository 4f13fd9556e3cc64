"""The interface every policy fills in."""
import torch


class Policy(torch.nn.Module):
    def pack_rollout(self, *arrays):
        """Return a dataset of the rollout's tensors, one example per step."""
        raise NotImplementedError("subclasses say how their inputs are batched")
