# Conditional GAN whose label embedding is shared by G and D and listed in
# both optimizers (param groups mixing two modules). The D backward reaches
# the embedding also through G's input (via fake), and opt_d steps the
# embedding with that gradient. G's own gradients are zeroed before G's step,
# so D(fake.detach()) looks right but drops the embedding's gradient through
# G. Correct: retain_graph=True on the D backward.
import torch
import torch.nn as nn

from models import CondD, CondG
from trainer import CGANTrainer


def main():
    torch.manual_seed(0)
    emb = nn.Embedding(3, 4)
    G, D = CondG(emb), CondD(emb)
    opt_g = torch.optim.Adam([{"params": G.net.parameters()}, {"params": emb.parameters(), "lr": 1e-4}], lr=1e-3)
    opt_d = torch.optim.Adam([{"params": D.net.parameters()}, {"params": emb.parameters(), "lr": 1e-4}], lr=1e-3)
    trainer = CGANTrainer(G, D, opt_g, opt_d)
    for _ in range(6):
        print(trainer.step(torch.randn(16, 8), torch.randint(0, 3, (16,))))


if __name__ == "__main__":
    main()
