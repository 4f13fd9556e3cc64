# expect-before: runs
# A trainer logs several statistics through one loop over (name, value)
# pairs: the loss keeps its graph in the history, but `value` is a float on
# the other iterations (`mae` is already `.item()`), so `[value.detach()]`
# would raise AttributeError there. The rule reports it and offers no fix.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

history = {"loss": [], "mae": []}
for it in range(ITERS):
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    out = model(x)
    loss = nn.functional.mse_loss(out, y)
    mae = (out - y).abs().mean().item()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    for name, value in [("loss", loss), ("mae", mae)]:
        history[name] += [value]

print(f"logged {len(history['loss'])} {sum(history['mae']):.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
