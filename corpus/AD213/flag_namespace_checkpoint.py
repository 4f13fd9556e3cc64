# expect-before: error Weights only load failed
# The 2018 habit of saving the command-line arguments next to the state
# dicts: the loading code reads like flag_checkpoint_dict, but this file
# fails under the 2.6 default. An explicit weights_only=True would not change
# that, only hide it; AD213 reports the load and leaves the choice to the user.
import argparse
import os
import tempfile

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
args = argparse.Namespace(lr=0.1, hidden=4)
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=args.lr)
path = os.path.join(tempfile.mkdtemp(), "ckpt.pt")
for it in range(ITERS):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("%.6f" % loss.item())
torch.save({"model": model.state_dict(), "args": args, "epoch": ITERS}, path)
ckpt = torch.load(path, map_location="cpu")
fresh = nn.Linear(4, 2)
fresh.load_state_dict(ckpt["model"])
print(ckpt["epoch"], ckpt["args"].lr, "%.6f" % sum(p.sum().item() for p in fresh.parameters()))
