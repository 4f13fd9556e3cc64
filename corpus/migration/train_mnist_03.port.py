"""Sequential MNIST with an LSTM over image rows: the hand port of
train_mnist_03.py to current PyTorch, written the way one would today.

It must print exactly what the automatically fixed script prints.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

NHID = 32
CHUNK = 14

torch.manual_seed(1)


def synthetic_mnist(n):
    labels = torch.randint(0, 10, (n,))
    images = torch.rand(n, 28, 28)
    images[:, :, :10] += 0.5 * F.one_hot(labels, 10).unsqueeze(1)
    return images, labels


class RowLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(28, NHID)
        self.gate = nn.Linear(NHID, NHID)
        self.out = nn.Linear(NHID, 10)
        nn.init.xavier_uniform_(self.gate.weight)
        nn.init.xavier_uniform_(self.out.weight)

    def init_hidden(self, bsz):
        return (torch.zeros(1, bsz, NHID), torch.zeros(1, bsz, NHID))

    def forward(self, rows, hidden):
        out, hidden = self.lstm(rows, hidden)
        feat = out[-1] * torch.sigmoid(self.gate(out[-1]))
        return F.log_softmax(self.out(feat), dim=1), hidden


train_x, train_y = synthetic_mnist(512)
test_x, test_y = synthetic_mnist(256)
train_loader = DataLoader(TensorDataset(train_x, train_y), batch_size=64)
test_loader = DataLoader(TensorDataset(test_x, test_y), batch_size=128)

model = RowLSTM()
optimizer = optim.SGD(model.parameters(), lr=0.5, momentum=0.5)


def train(epoch):
    model.train()
    total_loss = 0.0
    for batch_idx, (data, target) in enumerate(train_loader):
        rows = data.transpose(0, 1)
        hidden = model.init_hidden(data.size(0))
        optimizer.zero_grad()
        # truncated BPTT: the first half of the rows only warms up the state
        _, hidden = model(rows[:CHUNK], hidden)
        hidden = tuple(h.detach() for h in hidden)
        output, hidden = model(rows[CHUNK:], hidden)
        loss = F.nll_loss(output, target)
        loss.backward(retain_graph=True)  # the penalty below reuses this graph
        penalty = 1e-3 * hidden[0].pow(2).sum()
        penalty.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        total_loss += loss.item()
        if batch_idx % 4 == 0:
            print(f"epoch {epoch} batch {batch_idx} loss {loss.item():.6f}")
    return total_loss / len(train_loader)


@torch.no_grad()
def test():
    model.eval()
    test_loss = 0.0
    correct = 0
    for data, target in test_loader:
        output, _ = model(data.transpose(0, 1), model.init_hidden(data.size(0)))
        test_loss += F.nll_loss(output, target, reduction="sum").item()
        correct += (output.argmax(1) == target).sum().item()
    test_loss /= len(test_loader.dataset)
    print(f"test: average loss {test_loss:.4f}, accuracy {correct}/{len(test_loader.dataset)}")


for epoch in range(1, 3):
    avg = train(epoch)
    print(f"epoch {epoch} average loss {avg:.6f}")
    test()
