# expect-before: runs
# The word language model with a fresh hidden state for every batch: nothing
# links one batch's graph to the next.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid = nhid
        self.nlayers = nlayers

    def forward(self, input, hidden):
        emb = self.encoder(input)
        output, hidden = self.rnn(emb, hidden)
        return F.log_softmax(self.decoder(output), dim=-1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
ntokens, bsz, bptt = 30, 4, 5
model = RNNModel(ntokens, 12, 16, 1)
criterion = nn.NLLLoss()
lr = 5.0
stream = torch.randint(0, ntokens, (bptt * (ITERS + 1) + 1, bsz))

for batch in range(ITERS):
    hidden = model.init_hidden(bsz)
    i = batch * bptt
    data, targets = stream[i:i + bptt], stream[i + 1:i + 1 + bptt]
    model.zero_grad()
    output, hidden = model(data, hidden)
    loss = criterion(output.view(-1, ntokens), targets.reshape(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)
    print(f"{batch} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
