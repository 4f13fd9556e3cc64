# expect-before: error modified by an inplace operation
# Semi-supervised training alternates two phases over one model, with a
# tuple of two optimizers from the caller. The unlabeled phase builds its loss
# from outputs the labeled phase computed, before `optimizer[0].step()`
# updated the weights that graph saved (retained by the labeled backward).
import os

import torch
from torch import nn, optim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.Tanh())
        self.seg = nn.Linear(16, 1)
        self.rec = nn.Linear(16, 6)

    def forward(self, x):
        h = self.body(x)
        return torch.sigmoid(self.seg(h)), self.rec(h)


def train_model(model, batches, criterion, optimizer):
    for labeled, unlabeled in batches:
        for phase in ("labeled", "unlabeled"):
            model.train()
            optimizer[0].zero_grad()
            optimizer[1].zero_grad()
            if phase == "labeled":
                inputs, labels = labeled
                out_l, out_u = model(inputs)
                recon = out_u
                loss = criterion[0](out_l, labels) + 0.0 * criterion[1](recon, inputs)
            elif phase == "unlabeled":
                inputs = unlabeled
                out_l, out_u = model(inputs)
                loss = criterion[1](recon, inputs)
            if phase == "labeled":
                loss.backward(retain_graph=True)
                optimizer[0].step()
            elif phase == "unlabeled":
                loss.backward()
                optimizer[1].step()
            print(f"{phase} loss {loss.item():.6f}")
    return model


if __name__ == "__main__":
    torch.manual_seed(0)
    model = TwoHeads()
    optimizers = (optim.SGD(model.parameters(), lr=0.05), optim.SGD(model.parameters(), lr=0.01))
    batches = [((torch.randn(8, 6), torch.rand(8, 1)), torch.randn(8, 6)) for _ in range(ITERS)]
    train_model(model, batches, (nn.BCELoss(), nn.MSELoss()), optimizers)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
