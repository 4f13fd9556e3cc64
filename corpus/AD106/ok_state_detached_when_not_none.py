# expect-before: runs
# The state starts as None and the model builds its own on the first batch;
# from then on it is detached before each batch, under `if state is not None`
# (an LSTM's (h, c) tuple element by element). Where the test is false the
# state is None and holds no graph: correct code.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class WordLSTM(nn.Module):
    def __init__(self, vocab=12, hid=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, hid)
        self.rnn = nn.LSTM(hid, hid)
        self.out = nn.Linear(hid, vocab)

    def forward(self, x, state):
        y, state = self.rnn(self.emb(x), state)
        return self.out(y), state


def train(model, batches, lr):
    loss = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    state = None
    for i, (x, y) in enumerate(batches):
        if state is not None:
            if isinstance(state, tuple):
                state = (state[0].detach(), state[1].detach())
            else:
                state = state.detach()
        output, state = model(x, state)
        l = loss(output.view(-1, 12), y.view(-1))
        optimizer.zero_grad()
        l.backward()
        optimizer.step()
        print(f"{i} loss {l.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = WordLSTM()
    data = [(torch.randint(0, 12, (5, 4)), torch.randint(0, 12, (5, 4))) for _ in range(ITERS)]
    train(net, data, 0.5)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
