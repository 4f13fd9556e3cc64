# expect-before: error modified by an inplace operation
# A world-model trainer (Dreamer-style): the optimizers are built on parameter
# lists kept on `self`, and the loss helper reads the model through a local
# alias (`model = self.agent.model`). The actor loss runs through the reward
# model, which the model optimizer steps before the actor backward.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class WorldModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.reward_model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
        self.action_decoder = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 8))


class Agent:
    def __init__(self):
        self.model = WorldModel()


class Algo:
    def __init__(self, agent):
        self.agent = agent
        model = self.agent.model
        self.model_parameters = model_parameters = \
            list(model.encoder.parameters()) + list(model.reward_model.parameters())
        self.actor_parameters = model.action_decoder.parameters()
        self.model_optimizer = torch.optim.Adam(self.model_parameters, lr=1e-3)
        self.actor_optimizer = torch.optim.Adam(self.actor_parameters, lr=1e-3)

    def loss(self, obs, reward):
        model = self.agent.model
        feat = model.encoder(obs)
        model_loss = ((model.reward_model(feat) - reward) ** 2).mean()
        imagined = model.action_decoder(feat.detach())
        actor_loss = -model.reward_model(imagined).mean()
        return model_loss, actor_loss

    def optimize(self, obs, reward):
        self.model_optimizer.zero_grad()
        self.actor_optimizer.zero_grad()
        model_loss, actor_loss = self.loss(obs, reward)
        model_loss.backward()
        self.model_optimizer.step()
        self.actor_optimizer.zero_grad()
        actor_loss.backward()
        self.actor_optimizer.step()
        print(f"model loss {model_loss.item():.6f} actor loss {actor_loss.item():.6f}")


torch.manual_seed(0)
algo = Algo(Agent())
for it in range(ITERS):
    algo.optimize(torch.randn(8, 4), torch.randn(8, 1))
print(f"checksum {sum(p.sum().item() for p in algo.agent.model.parameters()):.6f}")
