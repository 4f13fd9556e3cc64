# expect-before: runs
# A decoder and a stop-token head trained either with the main loss or, when the
# configuration says the stop head is separate, by a backward of its own after the
# main step. The two tests contradict each other on a flag the loop never changes:
# the main backward never frees the stop loss's graph when the second backward runs.
import os
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.out = nn.Linear(8, 4)

    def forward(self, x):
        return self.out(torch.tanh(self.body(x)))


def train(c, decoder, stopnet, batches, lr=0.1):
    optimizer = torch.optim.SGD(decoder.parameters(), lr=lr)
    optimizer_st = torch.optim.SGD(stopnet.parameters(), lr=lr)
    for step, (x, y, stop) in enumerate(batches):
        optimizer.zero_grad()
        if c.separate_stopnet:
            optimizer_st.zero_grad()
        output = decoder(x)
        stop_tokens = stopnet(x).squeeze(-1)
        stop_loss = F.binary_cross_entropy_with_logits(stop_tokens, stop) if c.stopnet else torch.zeros(1)
        loss = F.mse_loss(output, y)
        if not c.separate_stopnet and c.stopnet:
            loss += stop_loss
        loss.backward()
        optimizer.step()
        if c.separate_stopnet:
            stop_loss.backward()
            optimizer_st.step()
        print(f"{step} loss {loss.item():.6f} stop {stop_loss.item():.6f}")


torch.manual_seed(0)
net, stop_head = Decoder(), nn.Linear(4, 1)
train(SimpleNamespace(separate_stopnet=True, stopnet=True), net, stop_head,
      [(torch.randn(5, 4), torch.randn(5, 4), torch.randint(0, 2, (5,)).float()) for _ in range(ITERS)])
print(f"checksum {sum(p.sum().item() for p in [*net.parameters(), *stop_head.parameters()]):.6f}")
