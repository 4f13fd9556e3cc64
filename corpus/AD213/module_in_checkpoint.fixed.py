# expect-before: error Weights only load failed
# autodetach-test: unsafe
# A GAN checkpoint of the 2018 kind: the generator module itself pickled in a
# dict. Loading it fails since PyTorch 2.6 unless the file is trusted.
import os
import tempfile

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
path = os.path.join(tempfile.mkdtemp(), "gan.pt")
torch.save({"generator": nn.Sequential(nn.Linear(3, 5), nn.Tanh()), "epoch": 7}, path)
ckpt = torch.load(path, weights_only=False)
G = ckpt["generator"]
G.eval()
z = torch.randn(2, 3)
for it in range(ITERS):
    print(ckpt["epoch"], "%.6f" % G(z * it).sum().item())
