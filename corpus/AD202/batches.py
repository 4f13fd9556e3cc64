# expect-before: runs
# 0.3-style loop: batches from a DataLoader and a weight leaf wrapped in Variable.
import torch
from torch.autograd import Variable
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
xs = torch.randn(32, 3)
ys = xs @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.1 * torch.randn(32, 1)
loader = DataLoader(TensorDataset(xs, ys), batch_size=8)
w = Variable(torch.zeros(3, 1), requires_grad=True)
b = Variable(torch.zeros(1).float(), requires_grad=True)
for epoch in range(3):
    total = 0.0
    for data, target in loader:
        data, target = Variable(data), Variable(target)
        loss = ((data @ w + b - target) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
            b -= 0.1 * b.grad
        w.grad.zero_()
        b.grad.zero_()
        total += loss.item()
    print(f"{epoch} {total:.6f} {w.view(-1).tolist()}")
