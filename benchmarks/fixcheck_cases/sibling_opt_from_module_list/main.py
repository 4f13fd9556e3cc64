# Encoder and decoder; the optimizer is built in a sibling module from a list
# of modules (one optimizer over both). Two losses on the encoder's output
# with two backward calls: the second frees nothing new but needs the encoder
# graph the first freed. retain_graph on the first is the fix; a detach of
# the encoder output in either loss would stop the encoder learning from it.
import torch
import torch.nn as nn
import torch.nn.functional as F

from optim_utils import make_optimizer


def main():
    torch.manual_seed(0)
    enc = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
    dec = nn.Linear(16, 8)
    cls = nn.Linear(16, 3)
    opt = make_optimizer([enc, dec, cls])
    for step in range(6):
        x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
        z = enc(x)
        opt.zero_grad()
        rec = F.mse_loss(dec(z), x)
        rec.backward()
        ce = F.cross_entropy(cls(z), y)
        ce.backward()
        opt.step()
    print(rec.item(), ce.item())


if __name__ == "__main__":
    main()
