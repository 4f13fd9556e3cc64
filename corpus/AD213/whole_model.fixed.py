# expect-before: error Weights only load failed
# autodetach-test: unsafe
# A 2018-style checkpoint: the whole model pickled with torch.save(model, ...)
# and loaded back with torch.load. Since PyTorch 2.6 that load fails unless
# the file is trusted with weights_only=False.
import os
import tempfile

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x).tanh()


torch.manual_seed(0)
path = os.path.join(tempfile.mkdtemp(), "model.pt")
torch.save(Net(), path)
model = torch.load(path, weights_only=False)
model.eval()
x = torch.randn(3, 4)
for it in range(ITERS):
    print("%.6f" % model(x * (it + 1)).sum().item())
