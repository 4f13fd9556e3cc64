"""An adversarial loss kept in its own module: the critic scores frozen
features of the waveforms, the generated one not detached."""
import os

import torch
from torch import nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 12))

    def forward(self, noise):
        return self.body(noise)

    def optimizer(self, lr):
        return torch.optim.Adam(self.parameters(), lr=lr)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, feats):
        return self.body(feats)

    def optimizer(self, lr):
        return torch.optim.Adam(self.parameters(), lr=lr)


class CriticLoss(nn.Module):
    def __init__(self, model, every=2):
        super().__init__()
        self.model = model
        self.features = nn.Linear(12, 8).requires_grad_(False)
        self.every = every

    def score(self, wave):
        return self.model["critic"](self.features(wave))

    def forward(self, step, real, noise):
        if len(real) < 2:
            return None
        fake = self.model["generator"](noise)
        if (step + 1) % self.every == 0:
            # the fake term is not detached: the generator step walks this graph again
            d_loss = (1 - self.score(real)).pow(2).mean() + self.score(fake).pow(2).mean()
        else:
            d_loss = 0
        return d_loss, fake

    def generator_loss(self, fake):
        return (1 - self.model["critic"](self.features(fake))).pow(2).mean()


def build_model():
    return {"generator": Generator(), "critic": Critic()}


def load_checkpoint(model, optimizer, path):
    """Resume from `path` when it exists: the networks, the optimizer and the step to start from."""
    if not path or not os.path.exists(path):
        return model, optimizer, 0
    state = torch.load(path, map_location="cpu", weights_only=True)
    for key in model:
        model[key].load_state_dict(state["net"][key])
    optimizer.load_state_dict(state["optimizer"])
    return model, optimizer, state["step"]
