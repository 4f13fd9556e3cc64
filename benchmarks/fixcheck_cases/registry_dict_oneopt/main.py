# Two nets built through a registry into a dict; ONE optimizer over both
# (itertools.chain over the dict's values). The D step frees G's graph that
# the G step reuses. Under one optimizer the D step's gradient through G is
# applied: only retain_graph=True keeps the numbers; a detach is wrong.
import itertools

import torch
import torch.nn.functional as F

from nets import build


def main():
    torch.manual_seed(0)
    models = build(["gen", "disc"])
    opt = torch.optim.Adam(itertools.chain(*(m.parameters() for m in models.values())), lr=1e-3)
    for step in range(6):
        real = torch.randn(16, 8)
        fake = models["gen"](torch.randn(16, 4))
        opt.zero_grad()
        d_loss = F.softplus(-models["disc"](real)).mean() + F.softplus(models["disc"](fake)).mean()
        d_loss.backward()
        opt.step()
        opt.zero_grad()
        g_loss = F.softplus(-models["disc"](fake)).mean()
        g_loss.backward()
        opt.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
