# Gradient accumulation the usual way: backward per micro-batch (loss scaled
# by 1/accum), optimizer step and zero_grad every `accum` batches, and a
# running total kept with .item() for logging. Correct: no finding.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, accum=3):
        self.model, self.optimizer, self.accum = model, optimizer, accum

    def fit(self, loader):
        running = 0.0
        self.optimizer.zero_grad()
        for i, (x, y) in enumerate(loader):
            loss = F.mse_loss(self.model(x), y) / self.accum
            loss.backward()
            running += loss.item()
            if (i + 1) % self.accum == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()
        return running


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    loader = [(torch.randn(8, 8), torch.randn(8, 1)) for _ in range(9)]
    print(Trainer(model, torch.optim.Adam(model.parameters(), lr=1e-3)).fit(loader))


if __name__ == "__main__":
    main()
