# expect-before: error modified by an inplace operation
# autodetach-test: unsafe
# The learner splits the model's parameters in a method of its own (base
# weights and FiLM layers, one optimizer each). The second loss is built
# before the base optimizer steps and backwarded after it.
import os

import torch
from torch import nn, optim
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class FiLMNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.film_gamma = nn.Parameter(torch.ones(16))
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)) * self.film_gamma)


class Learner:
    def __init__(self, model):
        self.model = model
        base_params, film_params = self.split_parameters()
        self.model_optim = optim.SGD(base_params, lr=0.05)
        self.film_optim = optim.SGD(film_params, lr=0.05)

    def split_parameters(self):
        base, film = [], []
        for name, p in self.model.named_parameters():
            (film if name.startswith("film") else base).append(p)
        return base, film

    def train_step(self, x, y, x_new, y_new):
        model_loss = F.mse_loss(self.model(x), y)
        self.model_optim.zero_grad()
        model_loss.backward()
        self.model_optim.step()
        self.film_optim.zero_grad()
        film_loss = F.mse_loss(self.model(x_new), y_new)
        film_loss.backward()
        self.film_optim.step()
        return model_loss.item(), film_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    learner = Learner(FiLMNet())
    for it in range(ITERS):
        x, x_new = torch.randn(16, 4), torch.randn(16, 4)
        m_loss, f_loss = learner.train_step(x, x.sum(1, keepdim=True), x_new, x_new.sum(1, keepdim=True))
        print(f"{it} model {m_loss:.6f} film {f_loss:.6f}")
    print(f"checksum {sum(p.sum().item() for p in learner.model.parameters()):.6f}")
