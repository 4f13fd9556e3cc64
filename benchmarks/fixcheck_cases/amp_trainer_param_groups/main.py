# A Trainer with an enabled CPU GradScaler and ONE optimizer whose two param
# groups are G and D (built in __init__ from the networks it is given). Both
# scaled losses are backwarded before scaler.step, so G learns from the D
# loss. Correct: retain_graph=True on the first scaled backward.
import torch
import torch.nn as nn

from trainer import AmpTrainer


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    trainer = AmpTrainer(G, D)
    for _ in range(6):
        print(trainer.step(torch.randn(16, 8)))


if __name__ == "__main__":
    main()
