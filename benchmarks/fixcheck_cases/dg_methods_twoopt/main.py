import torch
import torch.nn as nn

from trainer import GANTrainer

if __name__ == "__main__":
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    t = GANTrainer(G, D)
    for it in range(6):
        print(t.train_step(torch.randn(8, 8)))
