# expect-before: runs
# Feature-critic meta training (Feature_Critic's shape): the regulariser loss is
# bound under `if self.id_dg == ...` tests with no else, inside the meta loop. The
# tests read a setting fixed at construction, so every iteration takes the same
# arm: the loss read after them is always this iteration's, built after the
# previous step; no graph from before a step is backwarded (the second backward
# keeps its graph for a meta-gradient, `create_graph=True`).
import os

import torch
import torch.nn as nn

from networks import *  # noqa: F401,F403

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class FeatureCritic:
    def __init__(self, kind):
        self.features = feature_net(6, 8)
        self.phi = nn.Linear(8, 3)
        self.opt_theta = torch.optim.SGD(self.features.parameters(), lr=0.05)
        self.opt_phi = torch.optim.SGD(self.phi.parameters(), lr=0.05)
        self.id_dg = {"mlp": 1, "flat": 2}[kind]
        if self.id_dg == 1:
            self.omega = Critic(8)
        if self.id_dg == 2:
            self.omega = Critic(64)
        self.beta = 0.1

    def train(self, batches):
        for itr in range(ITERS):
            loss_main_total = 0.0
            loss_dg_total = 0.0
            for x, y in batches:
                feat = self.features(x)
                loss_main_total += nn.functional.cross_entropy(self.phi(feat), y)
                if self.id_dg == 1:
                    loss_dg = self.beta * self.omega(feat)
                if self.id_dg == 2:
                    loss_dg = self.beta * self.omega(torch.matmul(feat.t(), feat).view(1, -1))
                loss_dg_total += loss_dg
            self.opt_theta.zero_grad()
            self.opt_phi.zero_grad()
            loss_main_total.backward(retain_graph=True)
            loss_dg_total.backward(create_graph=True)
            self.opt_theta.step()
            self.opt_phi.step()
            print(f"{itr} main {loss_main_total.item():.6f} dg {loss_dg_total.item():.6f}")


torch.manual_seed(0)
data = [(torch.randn(5, 6), torch.randint(0, 3, (5,))) for _ in range(ITERS)]
model = FeatureCritic("mlp")
model.train(data)
print(f"checksum {sum(p.sum().item() for p in model.features.parameters()):.6f}")
