# expect-before: runs
# A file holding only a state dict, loaded straight into load_state_dict: it
# loads under today's default (weights_only=True), which the fix writes out.
import os
import tempfile

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
path = os.path.join(tempfile.mkdtemp(), "weights.pt")
for it in range(ITERS):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("%.6f" % loss.item())
torch.save(model.state_dict(), path)
fresh = nn.Linear(4, 2)
fresh.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
print("%.6f" % sum(p.sum().item() for p in fresh.parameters()))
