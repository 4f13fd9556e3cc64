# The model object of the case: networks and their optimizers as attributes.
import torch
from torch import nn


class InpaintModel:
    def __init__(self):
        self.generator = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 6))
        self.discriminator = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.gen_optimizer = torch.optim.Adam(self.generator.parameters(), lr=1e-3)
        self.dis_optimizer = torch.optim.Adam(self.discriminator.parameters(), lr=1e-3)
        self.l1_loss = nn.L1Loss()
