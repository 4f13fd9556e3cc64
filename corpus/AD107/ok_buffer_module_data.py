# expect-before: runs
# Training data simulated once, before the loop, by a module of the file that
# holds buffers only (an Ornstein-Uhlenbeck drift, its constants registered as
# buffers): it has no parameters, so the samples and the loader over them
# carry no graph, and every iteration's backward is its own.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class OUDrift(nn.Module):
    def __init__(self, mu, theta):
        super().__init__()
        self.register_buffer("mu", torch.as_tensor(mu))
        self.register_buffer("theta", torch.as_tensor(theta))
        self.dt = 0.1

    def forward(self, y):
        return y + self.dt * (self.mu - self.theta * y)


def get_data(batch_size, steps=6):
    drift = OUDrift(0.2, 0.5)
    y = torch.randn(32, 1)
    path = [y]
    for _ in range(steps):
        y = drift(y) + 0.05 * torch.randn_like(y)
        path.append(y)
    ts = torch.linspace(0, 1, steps + 1)
    ys = torch.cat(path, dim=1)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(ys), batch_size=batch_size, shuffle=False)
    return ts, loader


if __name__ == "__main__":
    torch.manual_seed(0)
    ts, loader = get_data(batch_size=8)
    model = nn.Sequential(nn.Linear(7, 16), nn.Tanh(), nn.Linear(16, 7))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(ITERS):
        for (batch,) in loader:
            loss = ((model(batch * ts) - batch) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"{step} loss {loss.item():.6f}")
    print(f"steps {ITERS} checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
