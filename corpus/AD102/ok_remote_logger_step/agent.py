"""The agent whose training step feeds the logger of train.py."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Agent:
    def __init__(self, logger):
        self.net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.05)
        self.logger = logger
        self.steps = 0

    def update(self, x, y):
        self.steps += 1
        loss = F.mse_loss(self.net(x), y)
        self.logger.log_scalar("train_loss", loss.item(), self.steps)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


def run(iters, logger=None):
    if logger is None:
        from train import ScalarLogger

        logger = ScalarLogger()
    agent = Agent(logger)
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(iters)]
    for x, y in data:
        agent.update(x, y)
        print(f"loss {logger.last('train_loss'):.6f}")
    print(f"checksum {sum(p.sum().item() for p in agent.net.parameters()):.6f}")
