"""The project's distributed helpers (imported by meters.py). On one process
the mean over workers is the value itself, and like a differentiable
all-reduce it keeps the graph of what it is given."""
import torch


def world_size() -> int:
    return 1


def all_mean(t: torch.Tensor) -> torch.Tensor:
    return t.cpu() / world_size()
