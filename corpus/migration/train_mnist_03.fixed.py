# corpus/migration: a PyTorch 0.3-era script; .fixed.py is `autodetach --fix --select AD2`, .port.py a hand port.
"""Sequential MNIST with an LSTM over image rows, written for PyTorch 0.3.

Synthetic digits stand in for MNIST (no downloads): 28x28 images whose label
is marked by a slightly brighter column among the first ten. Each image
is read row by row; truncated backpropagation cuts the hidden state halfway.
"""
from __future__ import print_function

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

NHID = 32
CHUNK = 14

torch.manual_seed(1)


def synthetic_mnist(n):
    labels = torch.LongTensor(n).random_(0, 10)
    onehot = torch.zeros(n, 10).scatter_(1, labels.view(-1, 1), 1.0)
    images = torch.rand(n, 28, 28)
    images[:, :, :10] += 0.5 * onehot.unsqueeze(1)
    return images, labels


class RowLSTM(nn.Module):
    def __init__(self):
        super(RowLSTM, self).__init__()
        self.lstm = nn.LSTM(28, NHID)
        self.gate = nn.Linear(NHID, NHID)
        self.out = nn.Linear(NHID, 10)
        nn.init.xavier_uniform_(self.gate.weight)
        nn.init.xavier_uniform_(self.out.weight)

    def init_hidden(self, bsz):
        weight = next(self.parameters()).data
        return (weight.new(1, bsz, NHID).zero_(),
                weight.new(1, bsz, NHID).zero_())

    def forward(self, rows, hidden):
        out, hidden = self.lstm(rows, hidden)
        feat = out[-1] * torch.sigmoid(self.gate(out[-1]))
        return F.log_softmax(self.out(feat), dim=1), hidden


def repackage_hidden(h):
    """Wraps hidden states in new Variables, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


train_x, train_y = synthetic_mnist(512)
test_x, test_y = synthetic_mnist(256)
train_loader = DataLoader(TensorDataset(train_x, train_y), batch_size=64)
test_loader = DataLoader(TensorDataset(test_x, test_y), batch_size=128)

model = RowLSTM()
optimizer = optim.SGD(model.parameters(), lr=0.5, momentum=0.5)


def train(epoch):
    model.train()
    total_loss = 0
    for batch_idx, (data, target) in enumerate(train_loader):
        rows = data.transpose(0, 1)
        hidden = model.init_hidden(data.size(0))
        optimizer.zero_grad()
        # truncated BPTT: the first half of the rows only warms up the state
        _, hidden = model(rows[:CHUNK], hidden)
        hidden = repackage_hidden(hidden)
        output, hidden = model(rows[CHUNK:], hidden)
        loss = F.nll_loss(output, target)
        loss.backward(retain_graph=True)
        # keep the final state small; it shares the graph with the loss
        penalty = 1e-3 * hidden[0].pow(2).sum()
        penalty.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        total_loss += loss.item()
        if batch_idx % 4 == 0:
            print('epoch {} batch {} loss {:.6f}'.format(epoch, batch_idx, loss.item()))
    return total_loss / len(train_loader)


def test():
    model.eval()
    test_loss = 0
    correct = 0
    for data, target in test_loader:
        with torch.no_grad():
            hidden = model.init_hidden(data.size(0))
            output, _ = model(data.transpose(0, 1), hidden)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.max(1, keepdim=True)[1]
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    print('test: average loss {:.4f}, accuracy {}/{}'.format(
        test_loss, correct, len(test_loader.dataset)))


for epoch in range(1, 3):
    avg = train(epoch)
    print('epoch {} average loss {:.6f}'.format(epoch, avg))
    test()
