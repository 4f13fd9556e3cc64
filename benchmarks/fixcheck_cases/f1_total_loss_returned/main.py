import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from engine import train


def main():
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(64, 6), torch.randn(64, 1))
    loader = DataLoader(ds, batch_size=16, shuffle=True)
    model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(3):
        avg = train(model, loader, optimizer, nn.MSELoss())
        print(f"epoch {epoch}: {avg.item():.4f}")


if __name__ == "__main__":
    main()
