"""Imports and settings the notebook's cells share."""
import torch
import torch.nn as nn  # noqa: F401
import torch.nn.functional as F  # noqa: F401

torch.set_printoptions(precision=6)
