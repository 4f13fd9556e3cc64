# Two optimizers passed to train(), each zeroed right AFTER its own step
# (backward, step, zero_grad). G's gradients from the D backward are not
# thrown away: they sit in G's .grad when the G backward adds to them, and
# opt_g steps with both. D(fake.detach()) would change G's updates; the
# reference's numbers need retain_graph=True on the D backward (AD105).
import torch

from nets import make_nets
from train import train


def main():
    torch.manual_seed(0)
    G, D = make_nets()
    opt_g = torch.optim.SGD(G.parameters(), lr=0.05)
    opt_d = torch.optim.SGD(D.parameters(), lr=0.05)
    train(G, D, opt_g, opt_d, steps=6)
    print(sum(p.sum().item() for p in G.parameters()))


if __name__ == "__main__":
    main()
