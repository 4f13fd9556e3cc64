import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        self.grad_norms = []

    def step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        grads = torch.autograd.grad(loss, list(self.model.parameters()))
        self.grad_norms.append(torch.stack([g.norm() for g in grads]).norm().item())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    t = Trainer(nn.Sequential(nn.Linear(3, 8), nn.Sigmoid(), nn.Linear(8, 1)))
    for i in range(5):
        t.step(torch.randn(10, 3), torch.randn(10, 1))
    print(t.grad_norms)
