import torch
import torch.nn as nn

from trainer import GANTrainer


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    trainer = GANTrainer(G, D)
    for it in range(6):
        real = torch.randn(8, 8)
        fake = trainer.G(torch.randn(8, 4))
        ld = trainer.d_step(real, fake)
        lg = trainer.g_step(fake)
        print(it, ld, lg)


if __name__ == "__main__":
    main()
