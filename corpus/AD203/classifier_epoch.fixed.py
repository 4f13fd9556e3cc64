# expect-before: error invalid index of a 0-dim tensor
# A 0.3-era classifier loop: the running loss is read with `loss.data[0]`.
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(32, 6)
labels = torch.randint(0, 3, (32,))


def train_epoch():
    running = 0.0
    for i in range(0, 32, 8):
        x = Variable(inputs[i:i + 8])
        y = Variable(labels[i:i + 8])
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        running += loss.item()
    return running / 4


for epoch in range(3):
    print(f"epoch {epoch} loss {train_epoch():.6f}")
