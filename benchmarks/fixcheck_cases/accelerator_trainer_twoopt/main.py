# accelerate's Accelerator (a stand-in in accel.py) held by a trainer class:
# accelerator.prepare(...) inside __init__, accelerator.backward(loss) in the
# step. Two optimizers: the D backward frees G's graph, and G's gradients from
# it are zeroed before G's step. Correct: D(fake.detach()) in the D loss
# (AD103) or retain_graph=True on the D backward; both match the reference.
import torch
import torch.nn as nn

from accel import Accelerator
from trainer import GANTrainer


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    trainer = GANTrainer(Accelerator(), G, D, torch.optim.Adam(G.parameters(), lr=1e-3),
                         torch.optim.Adam(D.parameters(), lr=1e-3))
    for _ in range(6):
        print(trainer.train_step(torch.randn(16, 8)))


if __name__ == "__main__":
    main()
