# expect-before: error Trying to backward through the graph a second time
# A running average of the outputs is kept through training and, after it, a
# penalty built in a `lambda` reads it and is backwarded to fine-tune the model
# once more. The loop never backwards the average, but the lambda hands it to a
# backward the analysis does not follow: detaching it where it is stored would
# leave the final penalty nothing to train through, so the fix offered is
# unsafe (inferred: what the lambda returns may be backwarded).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Linear(6, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
avg = torch.zeros(16, 2)
for it in range(ITERS):
    out = model(torch.randn(16, 6))
    avg = 0.8 * avg + 0.2 * out
    loss = (out - 1.0).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{it} loss {loss.item():.6f}")

penalty = lambda: avg.pow(2).mean()  # noqa: E731
opt.zero_grad()
penalty().backward()
opt.step()
print(f"iters {ITERS} checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
