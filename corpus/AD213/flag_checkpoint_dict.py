# expect-before: runs
# A checkpoint saved as a dict of state dicts and an epoch number, read entry
# by entry: it loads with today's default (weights_only=True), but nothing in
# the loading code shows that every entry is plain data (flag_namespace_checkpoint
# is the same code on a file that also holds an argparse.Namespace), so AD213
# reports it without a fix.
import os
import tempfile

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
path = os.path.join(tempfile.mkdtemp(), "ckpt.pt")
for it in range(ITERS):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("%.6f" % loss.item())
torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": ITERS}, path)
ckpt = torch.load(path, map_location="cpu")
fresh = nn.Linear(4, 2)
fresh.load_state_dict(ckpt["model"])
print(ckpt["epoch"], "%.6f" % sum(p.sum().item() for p in fresh.parameters()))
