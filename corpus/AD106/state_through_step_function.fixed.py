# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# Truncated BPTT split into a step function: `train_step` runs one chunk
# through the model, backwards and steps, and returns the new hidden state,
# which the loop hands back in for the next chunk without detaching it.
# The model and optimizer come in as arguments: their roles are inferred.
import os

import torch
import torch.nn as nn


def _detach_state(state):
    """Cut recurrent state from the previous batch's graph (truncated BPTT)."""
    if isinstance(state, torch.Tensor):
        return state.detach()
    if isinstance(state, (tuple, list)):
        return type(state)(_detach_state(s) for s in state)
    return state


ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class WordLM(nn.Module):
    def __init__(self, vocab=12, hid=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, hid)
        self.rnn = nn.LSTM(hid, hid)
        self.out = nn.Linear(hid, vocab)

    def forward(self, x, hidden):
        y, hidden = self.rnn(self.emb(x), hidden)
        return self.out(y), hidden


def train_step(model, optimizer, criterion, x, y, hidden):
    optimizer.zero_grad()
    output, hidden = model(x, hidden)
    loss = criterion(output.view(-1, 12), y.view(-1))
    loss.backward()
    optimizer.step()
    return loss.item(), hidden


def train(model, optimizer, chunks):
    criterion = nn.CrossEntropyLoss()
    hidden = None
    for i, (x, y) in enumerate(chunks):
        hidden = _detach_state(hidden)
        loss, hidden = train_step(model, optimizer, criterion, x, y, hidden)
        print(f"{i} loss {loss:.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = WordLM()
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    train(net, opt, [(torch.randint(0, 12, (5, 4)), torch.randint(0, 12, (5, 4))) for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
