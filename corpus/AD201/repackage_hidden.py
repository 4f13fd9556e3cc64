# expect-before: runs
# A 0.3-era truncated-BPTT loop that cuts the hidden state by re-wrapping .data.
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
rnn = nn.RNN(4, 8)
head = nn.Linear(8, 1)
opt = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=0.1)
h = Variable(torch.zeros(1, 2, 8))
for step in range(4):
    x = torch.randn(3, 2, 4)
    h = Variable(h.data)
    out, h = rnn(x, h)
    loss = head(out).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{step} {loss.item():.6f}")
