# expect-before: error invalid index of a 0-dim tensor
# A loss summed over a chunk from a number start, read 0.3 style
# (spro/char-rnn.pytorch train.py).
import torch
import torch.nn as nn

torch.manual_seed(0)
decoder = nn.Linear(6, 5)
optimizer = torch.optim.SGD(decoder.parameters(), lr=0.1)


def train(inp, target):
    optimizer.zero_grad()
    loss = 0
    for c in range(inp.size(1)):
        loss += criterion(decoder(inp[:, c]), target[:, c])
    loss.backward()
    optimizer.step()
    return loss.item() / inp.size(1)


criterion = nn.CrossEntropyLoss()
for epoch in range(3):
    print("loss %.6f" % train(torch.randn(4, 3, 6), torch.randint(0, 5, (4, 3))))
print("checksum %.6f" % sum(p.sum().item() for p in decoder.parameters()))
