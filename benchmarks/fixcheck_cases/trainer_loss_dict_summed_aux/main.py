# A trainer whose losses are returned in a dict and summed for one backward,
# then one of them is backwarded again with a weight: it shares the encoder
# graph the first backward freed. Both gradients are used (one optimizer):
# retain_graph=True on the sum's backward is the fix.
import torch
import torch.nn as nn

from trainer import Trainer


class AE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.dec = nn.Linear(16, 8)
        self.cls = nn.Linear(16, 3)


def main():
    torch.manual_seed(0)
    model = AE()
    t = Trainer(model, torch.optim.Adam(model.parameters(), lr=1e-3))
    for step in range(6):
        print(t.step(torch.randn(32, 8), torch.randint(0, 3, (32,))))


if __name__ == "__main__":
    main()
