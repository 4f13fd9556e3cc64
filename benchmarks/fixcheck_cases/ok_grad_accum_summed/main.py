# Gradient accumulation by summing the micro-batch losses into one tensor and
# calling backward once per step (engine.py). The loss graph spans the inner
# loop on purpose and is rebuilt every step. Correct: no finding, no change
# (a detach or .item() on the sum would stop training).
import torch
import torch.nn as nn

from engine import train_step


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for step in range(6):
        print(train_step(model, optimizer, torch.randn(32, 8), torch.randint(0, 3, (32,))))


if __name__ == "__main__":
    main()
