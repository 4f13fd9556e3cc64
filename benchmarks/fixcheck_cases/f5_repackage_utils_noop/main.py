import torch
import torch.nn as nn
import torch.nn.functional as F

from utils import repackage_hidden


class RNNModel(nn.Module):
    def __init__(self, ntoken=20, nhid=16):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, nhid)
        self.rnn = nn.LSTM(nhid, nhid)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, x, hidden):
        out, hidden = self.rnn(self.encoder(x), hidden)
        return self.decoder(out), hidden


def train(model, data, optimizer, bptt=8):
    hidden = None
    for i in range(0, data.size(0) - 1 - bptt, bptt):
        x, y = data[i:i + bptt], data[i + 1:i + 1 + bptt]
        if hidden is not None:
            hidden = repackage_hidden(hidden)
        out, hidden = model(x, hidden)
        loss = F.cross_entropy(out.view(-1, 20), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = RNNModel()
    print(train(model, torch.randint(0, 20, (50, 3)), torch.optim.SGD(model.parameters(), lr=0.5)))
