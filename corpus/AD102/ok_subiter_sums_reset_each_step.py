# expect-before: runs
# Sums over one step's sub-iterations (gradient accumulation with
# `iter_size`), reset at every step and read with `.item()` for logging.
# Each summed loss is backwarded in its sub-iteration (its saved tensors are
# freed) and the sum is dropped at the next step: nothing grows across
# iterations, so there is nothing to report.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
ITER_SIZE = 3


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 24), nn.ReLU(), nn.Linear(24, 1))
    disc = nn.Sequential(nn.Linear(1, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    opt_d = torch.optim.SGD(disc.parameters(), lr=0.05)
    for step in range(ITERS):
        loss_seg_value = 0
        loss_d_value = 0
        opt.zero_grad()
        opt_d.zero_grad()
        for sub_i in range(ITER_SIZE):
            x = torch.randn(8, 6)
            pred = model(x)
            loss_seg = F.mse_loss(pred, x.mean(1, keepdim=True))
            loss = loss_seg / ITER_SIZE
            loss_seg_value += loss_seg / ITER_SIZE
            loss.backward()
            loss_d_src = F.softplus(disc(pred.detach())).mean() / ITER_SIZE
            loss_d_src.backward()
            loss_d_tgt = F.softplus(-disc(torch.randn(8, 1))).mean() / ITER_SIZE
            loss_d_value += loss_d_src + loss_d_tgt
            loss_d_tgt.backward()
        loss_seg_value = loss_seg_value.item()
        loss_d_value = loss_d_value.item()
        opt.step()
        opt_d.step()
        print(f"{step} seg {loss_seg_value:.6f} d {loss_d_value:.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
