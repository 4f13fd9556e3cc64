import torch
import torch.nn as nn


class AE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(8, 4), nn.Tanh())
        self.dec = nn.Linear(4, 8)


def train(model, data, optimizer):
    enc, dec = model.enc, model.dec
    for x in data:
        optimizer.zero_grad()
        code = enc(x)
        rec = (dec(code) - x).pow(2).mean()
        rec.backward()
        ortho = (code.t() @ code / x.size(0) - torch.eye(4)).pow(2).sum() * 0.01
        ortho.backward()
        optimizer.step()
    return rec.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = AE()
    print(train(model, [torch.randn(10, 8) for _ in range(5)], torch.optim.Adam(model.parameters(), lr=1e-2)))
