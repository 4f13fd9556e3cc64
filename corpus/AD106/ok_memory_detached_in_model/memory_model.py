"""A segment-recurrent model that returns its memory for the next segment
already cut from this segment's graph (Transformer-XL style)."""
import torch
from torch import nn


class MemoryModel(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.mix = nn.Linear(dim, dim)

    def forward(self, x, labels, memories=None):
        h = self.proj(x)
        if memories is not None:
            h = h + self.mix(memories)
        loss = torch.mean((h - labels) ** 2)
        new_memories = h.mean(0, keepdim=True).expand_as(h).detach()
        return loss, new_memories
