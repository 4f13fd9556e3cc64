# An encoder shared by an auxiliary probe and the main head. The probe is
# trained first with its own optimizer; then the main optimizer (encoder +
# head) zeroes its gradients, so what the probe loss put into the encoder is
# thrown away. Correct: probe(feats.detach()) in the probe loss (AD103) or
# retain_graph=True on the probe backward; both match the reference.
import itertools

import torch
import torch.nn.functional as F

from nets import Encoder, head


def main():
    torch.manual_seed(0)
    enc, main_head, probe = Encoder(), head(3), head(1)
    opt_main = torch.optim.Adam(itertools.chain(enc.parameters(), main_head.parameters()), lr=1e-3)
    opt_probe = torch.optim.Adam(probe.parameters(), lr=1e-3)
    for step in range(6):
        x = torch.randn(16, 8)
        y, y_aux = torch.randint(0, 3, (16,)), torch.randn(16, 1)
        feats = enc(x)
        opt_probe.zero_grad()
        probe_loss = F.mse_loss(probe(feats), y_aux)
        probe_loss.backward()
        opt_probe.step()
        opt_main.zero_grad()
        loss = F.cross_entropy(main_head(feats), y)
        loss.backward()
        opt_main.step()
    print(loss.item(), probe_loss.item())


if __name__ == "__main__":
    main()
