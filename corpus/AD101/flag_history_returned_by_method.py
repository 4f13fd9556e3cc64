# expect-before: error Trying to backward through the graph a second time
# A trainer keeps every batch's embeddings on `self.bank`; after training its
# `summary()` method returns the last one and the caller backwards a
# regulariser on it. The step never backwards the bank, but what `summary()`
# returns goes to a caller the analysis does not follow: detaching at the
# append would cut that last backward, so the fix is unsafe (inferred).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self):
        self.encoder = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
        self.opt = torch.optim.Adam(self.encoder.parameters(), lr=1e-2)
        self.bank = []

    def step(self, x):
        emb = self.encoder(x)
        self.bank.append(emb)
        loss = emb.pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

    def summary(self):
        return self.bank[-1]


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer()
    for it in range(ITERS):
        print(f"{it} loss {trainer.step(torch.randn(12, 5)):.6f}")
    trainer.opt.zero_grad()
    (trainer.summary() - 0.5).abs().mean().backward()
    trainer.opt.step()
    print(f"iters {ITERS} checksum {sum(p.sum().item() for p in trainer.encoder.parameters()):.6f}")
