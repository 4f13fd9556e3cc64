# expect-before: runs
# A step method returns its retained loss and the caller backwards it again:
# `_attack_step` backwards the loss with retain_graph=True to update the
# perturbation, and `fit` then backwards the returned loss once more to train
# the model on the same graph. The retain is needed.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class AdversarialTrainer:
    def __init__(self, model, size):
        self.model = model
        self.delta = torch.zeros(size, requires_grad=True)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    def _attack_step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x + self.delta), y)
        loss.backward(retain_graph=True)
        with torch.no_grad():
            self.delta += 0.01 * self.delta.grad.sign()
        self.delta.grad = None
        return loss

    def fit(self, batches):
        for x, y in batches:
            self.optimizer.zero_grad()
            loss = self._attack_step(x, y)
            loss.backward()
            self.optimizer.step()
            print(f"{loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = AdversarialTrainer(nn.Linear(5, 1), 5)
    for step in range(ITERS):
        trainer.fit([(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(2)])
    print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
