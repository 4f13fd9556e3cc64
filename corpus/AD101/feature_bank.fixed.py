# expect-before: grows
# Normalised embeddings are collected in a bank for an analysis after
# training; each one keeps its graph and the tensors it saved alive.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self):
        self.encoder = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 8))
        self.classifier = nn.Linear(8, 3)
        params = list(self.encoder.parameters()) + list(self.classifier.parameters())
        self.opt = torch.optim.Adam(params, lr=1e-3)
        self.criterion = nn.CrossEntropyLoss()
        self.bank = []

    def step(self, x, y):
        feats = self.encoder(x)
        emb = F.normalize(feats, dim=1)
        self.bank.append(emb.detach())
        loss = self.criterion(self.classifier(feats), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer()
    for it in range(ITERS):
        x = torch.randn(16, 8)
        y = torch.randint(0, 3, (16,))
        print(f"{it} loss {trainer.step(x, y):.6f}")
    bank = torch.cat(trainer.bank)
    print(f"bank norm {bank.norm().item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.encoder.parameters()):.6f}")
