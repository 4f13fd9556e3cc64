import torch
from torch.autograd import Variable


def train_epoch(model, batches, optimizer, criterion):
    hidden = model.init_hidden(3)
    total = 0
    for x, y in batches:
        hidden = Variable(hidden.data)
        x, y = Variable(x), Variable(y)
        out, hidden = model(x, hidden)
        loss = criterion(out.view(-1, out.size(-1)), y.view(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.data[0] if loss.dim() else loss.item()
    return total
