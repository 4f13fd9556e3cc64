# expect-before: runs
# A monotonicity penalty (a Lightning-style step that returns its loss to
# the loop that backwards it): the training step sums, over the model's outputs,
# the gradient of each output with respect to the input, built with
# `create_graph=True` so that the penalty trains the model. The sum starts at
# 0 in every step and feeds that step's loss: it is meant to carry its graph,
# and no graph crosses steps.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 16), nn.Tanh())
        self.heads = nn.ModuleList([nn.Linear(16, 1) for _ in range(2)])

    def forward(self, x):
        h = self.body(x)
        return [head(h) for head in self.heads]


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        self.log = {}

    def training_step(self, x, y):
        x = x.clone().requires_grad_(True)
        predictions = self.model(x)
        gradient = 0
        for pred in predictions:
            gradient = gradient + torch.autograd.grad(pred, x, grad_outputs=torch.ones_like(pred),
                                                      create_graph=True)[0]
        penalty = F.relu(-gradient[:, 0]).mean()
        loss = sum(F.mse_loss(pred, y) for pred in predictions) + penalty
        self.log["loss"] = loss.item()
        return {"loss": loss}


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Model()
    trainer = Trainer(model)
    for step in range(ITERS):
        x = torch.randn(8, 3)
        out = trainer.training_step(x, x.sum(1, keepdim=True))
        trainer.optimizer.zero_grad()
        out["loss"].backward()
        trainer.optimizer.step()
        print(f"{step} loss {trainer.log['loss']:.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
