import itertools

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    enc = nn.Sequential(nn.Linear(6, 12), nn.ReLU())
    head_cls, head_reg = nn.Linear(12, 3), nn.Linear(12, 1)
    opt_cls = torch.optim.SGD(itertools.chain(enc.parameters(), head_cls.parameters()), lr=0.05)
    opt_reg = torch.optim.SGD(itertools.chain(enc.parameters(), head_reg.parameters()), lr=0.05)
    for i in range(5):
        x = torch.randn(8, 6)
        feats = enc(x)
        opt_cls.zero_grad()
        opt_reg.zero_grad()
        loss_cls = F.cross_entropy(head_cls(feats), torch.randint(0, 3, (8,)))
        loss_cls.backward()
        loss_reg = F.mse_loss(head_reg(feats), torch.randn(8, 1))
        loss_reg.backward()
        opt_cls.step()
        opt_reg.step()
    print(loss_cls.item(), loss_reg.item())


if __name__ == "__main__":
    main()
