# expect-before: runs
# Module-level script: train, then evaluate with volatile inputs. The backward
# calls come before the evaluation and share no loop with it, so the
# evaluation is wrapped in no_grad.
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(5):
    x = torch.randn(8, 4)
    loss = (net(x) - x.sum(1, keepdim=True)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"train {step} {loss.item():.6f}")

net.eval()
with torch.no_grad():
    test_x = Variable(torch.randn(16, 4))
    pred = net(test_x)
    err = (pred - test_x.sum(1, keepdim=True)).abs().mean()
    print(f"test {err.item():.6f}")
