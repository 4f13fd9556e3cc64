# expect-before: runs
# The Accelerate shape: the model, optimizer, data loader and scheduler go
# through `accelerator.prepare(...)` once, before the loop, and come back
# wrapped. Nothing that comes back is a tensor, so no graph is built before
# the loop: nothing is reported. (A small stand-in for Accelerate's
# `Accelerator`, so that the case runs without the package.)
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Accelerator:
    def prepare(self, *objects):
        return objects

    def backward(self, loss):
        loss.backward()


def main(dataset):
    accelerator = Accelerator()
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    train_dataloader = torch.utils.data.DataLoader(dataset, batch_size=4)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
    model, optimizer, train_dataloader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dataloader, lr_scheduler)
    for epoch in range(2):
        for step, (x, y) in enumerate(train_dataloader):
            loss = (model(x) - y).pow(2).mean()
            accelerator.backward(loss)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
            print(f"{epoch}.{step} loss {loss.item():.6f}")
    return model


if __name__ == "__main__":
    torch.manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(4 * ITERS, 4), torch.randn(4 * ITERS, 1))
    net = main(data)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
