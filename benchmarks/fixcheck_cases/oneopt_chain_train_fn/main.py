import itertools

import torch
from torch.utils.data import DataLoader, TensorDataset

from models import Encoder, Generator
from trainer import train


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(40, 8), torch.zeros(40))
    loader = DataLoader(data, batch_size=8)
    enc, gen = Encoder(), Generator()
    opt = torch.optim.Adam(itertools.chain(enc.parameters(), gen.parameters()), lr=1e-2)
    for epoch in range(2):
        print(epoch, train(enc, gen, loader, opt, torch.nn.MSELoss()))


if __name__ == "__main__":
    main()
