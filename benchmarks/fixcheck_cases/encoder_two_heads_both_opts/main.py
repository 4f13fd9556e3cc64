# A shared encoder with two heads and two optimizers, each owning the encoder
# and its head (multi-task code that tunes the encoder's learning rate per
# task). Both losses are backwarded before either step, so the encoder's
# gradient is the sum and both optimizers step it. The second backward needs
# the encoder's freed graph. Correct: retain_graph=True on the first
# backward; feat.detach() in either loss would change the encoder.
import torch

from model import MultiTask
from train import train


def main():
    torch.manual_seed(0)
    net = MultiTask()
    opt_a = torch.optim.SGD([{"params": net.encoder.parameters()}, {"params": net.head_a.parameters()}], lr=0.05)
    opt_b = torch.optim.SGD([{"params": net.encoder.parameters(), "lr": 0.01}, {"params": net.head_b.parameters()}],
                            lr=0.05)
    train(net, opt_a, opt_b, steps=6)
    print(sum(p.sum().item() for p in net.parameters()))


if __name__ == "__main__":
    main()
