# expect-before: runs
# torch.load with weights_only given, and pickle's own load: nothing to report.
import os
import pickle
import tempfile

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
d = tempfile.mkdtemp()
for it in range(ITERS):
    t = torch.randn(3) * it
    torch.save({"t": t}, os.path.join(d, "t.pt"))
    back = torch.load(os.path.join(d, "t.pt"), weights_only=True)
    with open(os.path.join(d, "meta.pkl"), "wb") as fh:
        pickle.dump({"it": it}, fh)
    with open(os.path.join(d, "meta.pkl"), "rb") as fh:
        meta = pickle.load(fh)
    print("%.6f" % back["t"].sum().item(), meta["it"])
