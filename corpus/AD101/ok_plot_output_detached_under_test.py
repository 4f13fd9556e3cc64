# expect-before: runs
# On plot iterations the loop computes the sigmoid of the batch's scores
# from a detached copy: `probs` outlives its iteration but holds no graph,
# and nothing reads it. Correct code (a leftover, not a leak).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
PLOT_EVERY = 2


class Tagger(nn.Module):
    def __init__(self, n_in=8, n_labels=5):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_in, 16), nn.ReLU(), nn.Linear(16, n_labels))

    def forward(self, x):
        return self.body(x)


def main():
    torch.manual_seed(0)
    model = Tagger()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(ITERS):
        x, labels = torch.randn(6, 8), (torch.rand(6, 5) > 0.5).float()
        optimizer.zero_grad()
        score = model(x)
        loss = F.binary_cross_entropy_with_logits(score, labels)
        loss.backward()
        optimizer.step()
        if step % PLOT_EVERY == PLOT_EVERY - 1:
            top = score.data.topk(2, dim=1)[1].tolist()
            print(f"{step} loss {loss.item():.6f} top {top[0]}")
            probs = torch.sigmoid(score.detach())
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
