"""The trainer of the project: it hands the worker's helper its status board and
backwards the loss the helper returns."""
import torch

from board import StatusBoard
from train import Worker


class Trainer(Worker):
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        self.status = StatusBoard()

    def train(self, loader):
        for episode, batch in enumerate(loader):
            self.optimizer.zero_grad()
            logits, loss = self.forward_and_collect(self.model, batch, self.status, episode)
            loss.backward()
            self.optimizer.step()
        return float(self.status["loss"])
