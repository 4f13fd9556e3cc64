# expect-before: error Trying to backward through the graph a second time
# A word-level LSTM language model on a batchified token stream: the LSTM's
# (h, c) tuple carries the previous chunk's graph into the next backward.
import os

import torch
from torch import nn, optim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data[:nbatch * bsz].view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def train(steps, ntokens=40, emsize=16, nhid=24, bsz=4, bptt=6):
    corpus = torch.randint(0, ntokens, (bsz * (steps * bptt + 1),))
    train_data = batchify(corpus, bsz)
    encoder = nn.Embedding(ntokens, emsize)
    lstm = nn.LSTM(emsize, nhid, num_layers=2, dropout=0.0)
    decoder = nn.Linear(nhid, ntokens)
    params = [*encoder.parameters(), *lstm.parameters(), *decoder.parameters()]
    opt = optim.SGD(params, lr=1.0)
    criterion = nn.NLLLoss()
    hidden = (torch.zeros(2, bsz, nhid), torch.zeros(2, bsz, nhid))
    for batch, i in enumerate(range(0, steps * bptt, bptt)):
        data, targets = get_batch(train_data, i, bptt)
        hidden = tuple(s.detach() for s in hidden)
        output, hidden = lstm(encoder(data), hidden)
        log_probs = torch.log_softmax(decoder(output), dim=-1).view(-1, ntokens)
        loss = criterion(log_probs, targets)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(params, 0.25)
        opt.step()
        print(f"{batch} loss {loss.item():.6f}")
    return params


if __name__ == "__main__":
    torch.manual_seed(0)
    params = train(ITERS)
    print(f"checksum {sum(p.sum().item() for p in params):.6f}")
