# A trainer caches the shared features of a batch on self in one method and
# trains one head per call of another method, each call backwarding with
# retain_graph=True: the next call walks the same feature graph, so every
# retain but the last call's is needed (and the last is the same line).
# Dropping it would crash the second call: the tool must leave it.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self):
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(16, 1) for _ in range(3)])
        self.opt = torch.optim.SGD([*self.body.parameters(), *self.heads.parameters()], lr=0.05)

    def set_batch(self, x):
        self.opt.zero_grad()
        self.feats = self.body(x)

    def train_head(self, i, y):
        loss = F.mse_loss(self.heads[i](self.feats), y)
        loss.backward(retain_graph=True)
        return loss.item()

    def finish(self):
        self.opt.step()


def main():
    torch.manual_seed(0)
    t = Trainer()
    for step in range(5):
        t.set_batch(torch.randn(32, 8))
        for i in range(3):
            t.train_head(i, torch.randn(32, 1))
        t.finish()
    print(sum(p.sum().item() for p in t.body.parameters()))


if __name__ == "__main__":
    main()
