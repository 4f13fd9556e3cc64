# expect-before: runs
# The running score adds `metrics.seq_score(out, ref)` each batch: the helper
# reads `out.data` and hands numpy tokens to a scorer, so it returns a Python
# float that keeps no graph (and has no `.detach()`)
# (Deep-Reinforcement-Learning-Hands-On's `bleu_sum += model.seq_bleu(r, ref)`).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

import metrics

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train(net, optimiser, batches):
    score_sum, count = 0.0, 0
    for x, ref in batches:
        optimiser.zero_grad()
        out = net(x)
        score_sum += metrics.seq_score(out, ref.tolist())
        count += 1
        loss = F.cross_entropy(out, ref)
        loss.backward()
        optimiser.step()
        print(f"loss {loss.item():.6f}")
    return score_sum / count


net = nn.Linear(6, 5)
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
data = [(torch.randn(8, 6), torch.randint(0, 5, (8,))) for _ in range(ITERS)]
print(f"score {train(net, opt, data):.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
