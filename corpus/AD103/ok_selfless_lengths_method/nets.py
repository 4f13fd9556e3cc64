"""The generator and the multi-scale discriminator of train.py. Each
discriminator block says how long its feature maps are for a given input
length: integer arithmetic on the lengths, never on the block's weights."""
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(1, 4, 3, padding=1), nn.Tanh(), nn.Conv1d(4, 1, 3, padding=1))

    def forward(self, x):
        return self.net(x)


class DiscriminatorBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(1, 2, 4, stride=2, padding=1)

    def forward(self, x):
        return self.conv(x)

    def features_lengths(self, lengths):
        return [lengths, torch.div(lengths, 2, rounding_mode="floor")]


class Discriminator(nn.Module):
    def __init__(self, scales=2):
        super().__init__()
        self.scales = scales
        self.blocks = nn.ModuleDict({f"d{2 ** i}": DiscriminatorBlock() for i in range(scales)})

    def forward(self, x):
        return {f"d{2 ** i}": self.blocks[f"d{2 ** i}"](x[..., ::2 ** i]) for i in range(self.scales)}

    def features_lengths(self, lengths):
        return {f"d{2 ** i}": self.blocks[f"d{2 ** i}"].features_lengths(torch.div(lengths, 2 ** i, rounding_mode="floor"))
                for i in range(self.scales)}
