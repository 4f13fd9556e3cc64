# A Trainer whose __init__ receives G, D and their two optimizers, all built in
# main.py (the models by a factory in models.py). The D step backwards through
# G's graph and frees it; G's gradients from it are zeroed before G's step.
# Correct: D(fake.detach()) in the D loss (AD103), or retain_graph=True on the
# D backward; both give the retain_graph reference's parameters.
import torch

from models import build_models
from trainer import Trainer


def main():
    torch.manual_seed(0)
    G, D = build_models()
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    trainer = Trainer(G, D, opt_g, opt_d)
    for _ in range(6):
        print(trainer.step(torch.randn(16, 8)))


if __name__ == "__main__":
    main()
