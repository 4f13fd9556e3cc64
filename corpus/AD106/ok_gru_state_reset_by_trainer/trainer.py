"""The project's trainer: one backward and one step per batch."""
import torch


class Trainer:
    def __init__(self, model, lr=0.1):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)

    def fit(self, batches):
        for i, (x, y) in enumerate(batches):
            self.model.init_state(x.size(0))
            self.opt.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.opt.step()
            print(f"{i} loss {loss.item():.6f}")
