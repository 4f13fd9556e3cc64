# expect-before: runs
# autodetach-test: unsafe
# A base trainer's loop backwards what its abstract `compute_loss` returns, with
# retain_graph=True, and nothing backwards that graph again: the retain only
# keeps it alive until the next batch. The subclass that defines the loss (here
# inside main()) is not seen through the base, so that it builds its graph anew
# on each call (no cached graph a later backward walks again) is inferred: unsafe.
import abc
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer(abc.ABC):
    def __init__(self, model, lr=0.05):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)

    @abc.abstractmethod
    def compute_loss(self, batch):
        ...

    def train(self, batches):
        for step, batch in enumerate(batches):
            self.opt.zero_grad()
            loss = self.compute_loss(batch)
            loss.backward(retain_graph=True)
            self.opt.step()
            print(f"{step} loss {loss.item():.6f}")


def main():
    class Regression(Trainer):
        def compute_loss(self, batch):
            x, y = batch
            return ((self.model(x) - y) ** 2).mean()

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    batches = []
    for _ in range(ITERS):
        x = torch.randn(16, 3)
        batches.append((x, x.sum(1, keepdim=True).sin()))
    Regression(model).train(batches)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f} after {ITERS} steps")


if __name__ == "__main__":
    main()
