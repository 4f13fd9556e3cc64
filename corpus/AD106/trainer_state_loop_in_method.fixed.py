# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# Truncated BPTT in a trainer class: `train_stream` loops over the chunks and
# calls `self.train_chunk` once per chunk, which feeds `self.hidden` from the
# last call back into the model without detaching it. The detach goes at the
# start of `train_chunk`; that each call starts a new chunk is inferred from
# the loop (the fix is unsafe).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F


def _detach_state(state):
    """Cut recurrent state from the previous batch's graph (truncated BPTT)."""
    if isinstance(state, torch.Tensor):
        return state.detach()
    if isinstance(state, (tuple, list)):
        return type(state)(_detach_state(s) for s in state)
    return state


ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class CharRNN(nn.Module):
    def __init__(self, vocab=12, hid=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, hid)
        self.rnn = nn.GRU(hid, hid, batch_first=True)
        self.out = nn.Linear(hid, vocab)

    def forward(self, tokens, hidden=None):
        h, hidden = self.rnn(self.emb(tokens), hidden)
        return self.out(h), hidden


class TBPTTTrainer:
    def __init__(self, model, bptt=5):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.5)
        self.bptt = bptt
        self.hidden = None

    def train_chunk(self, x, y):
        self.hidden = _detach_state(self.hidden)
        logits, self.hidden = self.model(x, self.hidden)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

    def train_stream(self, stream):
        for it in range(ITERS):
            i = it * self.bptt
            loss = self.train_chunk(stream[:, i:i + self.bptt], stream[:, i + 1:i + 1 + self.bptt])
            print(f"{it} loss {loss:.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = CharRNN()
    TBPTTTrainer(model).train_stream(torch.randint(0, 12, (3, ITERS * 5 + 1)))
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
