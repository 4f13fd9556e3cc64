# A linear probe on a frozen-by-detach encoder, trained with the encoder's
# own loss by one optimizer over both. The probe's input is detached on
# purpose (the probe must not shape the encoder): the cut is intended and
# must be left alone. Correct: no finding, no change.
import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    enc = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
    dec = nn.Linear(16, 8)
    probe = nn.Linear(16, 3)
    opt = torch.optim.Adam([*enc.parameters(), *dec.parameters(), *probe.parameters()], lr=1e-3)
    for step in range(6):
        x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
        z = enc(x)
        loss = F.mse_loss(dec(z), x) + F.cross_entropy(probe(z.detach()), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(loss.item())


if __name__ == "__main__":
    main()
