"""torch functions that make a new tensor from sizes, values or another
tensor's shape: what comes back carries none of its arguments' graph."""
from __future__ import annotations

NEW_TENSORS = frozenset({
    "zeros", "ones", "empty", "full", "tensor", "as_tensor", "randn", "rand", "randint", "randperm", "arange",
    "eye", "linspace", "zeros_like", "ones_like", "empty_like", "full_like", "randn_like", "rand_like",
    "randint_like", "Tensor", "FloatTensor"})
LIKE = frozenset(name for name in NEW_TENSORS if name.endswith("_like"))


def makes_new_tensor(qualified) -> bool:
    """`torch.zeros(n)`, `torch.randn_like(x)`: a qualified name of a torch factory."""
    return bool(qualified) and qualified.startswith("torch.") and qualified.rsplit(".", 1)[-1] in NEW_TENSORS
