"""The trainer of the project: a worker (train.py) whose helper it hands its
collector, backwarding the loss the helper returns."""
import torch

from collector import StatisticsCollector
from train import Worker


class Trainer(Worker):
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        self.training_stat_col = StatisticsCollector(["episode", "loss"])

    def train(self, loader):
        for episode, batch in enumerate(loader):
            self.optimizer.zero_grad()
            logits, loss = self.forward_and_collect(self.model, batch, self.training_stat_col, episode)
            loss.backward()
            self.optimizer.step()
        losses = self.training_stat_col["loss"]
        mean = sum(float(v) for v in losses) / len(losses)
        self.training_stat_col.empty()
        return mean
