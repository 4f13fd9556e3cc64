# One optimizer over itertools.chain(G.parameters(), D.parameters()), built in
# main.py and handed to a Trainer. Both losses' gradients are summed and used:
# G learns from the D loss too. Correct: retain_graph=True on the first
# backward (AD105). D(fake.detach()) would stop G learning from the D loss:
# a wrong fix.
import itertools

import torch

from models import build_models
from trainer import Trainer


def main():
    torch.manual_seed(0)
    G, D = build_models()
    optimizer = torch.optim.Adam(itertools.chain(G.parameters(), D.parameters()), lr=1e-3)
    trainer = Trainer(G, D, optimizer)
    for _ in range(6):
        print(trainer.step(torch.randn(16, 8)))


if __name__ == "__main__":
    main()
