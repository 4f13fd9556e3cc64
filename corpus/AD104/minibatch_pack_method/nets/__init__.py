from .base import Policy
from .mlp import MLPPolicy

__all__ = ["Policy", "MLPPolicy"]
