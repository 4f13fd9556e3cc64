# The Trainer builds its optimizer over G in __init__; a later method,
# attach_critic(), adds D to the SAME optimizer with add_param_group. Both
# losses are backwarded before one step, so G learns from the D loss too.
# Correct: retain_graph=True on the first backward; a detach would be wrong.
import torch
import torch.nn as nn

from trainer import Trainer


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    trainer = Trainer(G, lr=1e-3)
    trainer.attach_critic(D, lr=5e-4)
    for _ in range(6):
        print(trainer.step(torch.randn(16, 8)))


if __name__ == "__main__":
    main()
