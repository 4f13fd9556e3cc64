import torch
import torch.nn as nn

from train_lib import train_epoch


class GRULM(nn.Module):
    def __init__(self, n=15, h=10):
        super().__init__()
        self.h = h
        self.emb = nn.Embedding(n, h)
        self.gru = nn.GRU(h, h)
        self.out = nn.Linear(h, n)

    def init_hidden(self, bsz):
        return torch.zeros(1, bsz, self.h)

    def forward(self, x, hidden):
        o, hidden = self.gru(self.emb(x), hidden)
        return self.out(o), hidden


if __name__ == "__main__":
    torch.manual_seed(0)
    model = GRULM()
    data = torch.randint(0, 15, (41, 3))
    batches = [(data[i:i + 8], data[i + 1:i + 9]) for i in range(0, 32, 8)]
    opt = torch.optim.SGD(model.parameters(), lr=0.3)
    print(train_epoch(model, batches, opt, nn.CrossEntropyLoss()))
