# expect-before: runs
# eval_method_result_printed, written correctly: `run` still prints what
# `self.validate()` returns, but `validate` is decorated with
# torch.no_grad(), so its sum of losses builds no graph at all.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, model, train_data, val_data):
        self.model = model
        self.train_data = train_data
        self.val_data = val_data
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    def train_epoch(self):
        self.model.train()
        for x, y in self.train_data:
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        val_loss = 0.0
        for x, y in self.val_data:
            loss = self.criterion(self.model(x), y)
            val_loss += loss
        return float(val_loss) / len(self.val_data)

    def run(self, epochs):
        for epoch in range(epochs):
            self.train_epoch()
            print("epoch {} val {:.6f}".format(epoch, self.validate()))


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    train_data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    val_data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    Trainer(net, train_data, val_data).run(2)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
