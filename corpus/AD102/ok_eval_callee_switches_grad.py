# expect-before: runs
# The evaluation loop sums the loss that a shared task method returns, but it
# calls the task with track_gradient=False, and the task runs its forward under
# `torch.set_grad_enabled(track_gradient)`: the sums carry no graph. (A
# `with torch.no_grad():` around set-up code in the loop's own function does
# not guard the loop; one around a callee's forward does.)
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(8, 1)

    def forward(self, x):
        return self.l(x)

    def regression(self, data, track_gradient=True):
        x, y = [j.float() for j in data]
        with torch.set_grad_enabled(track_gradient):
            out = self.forward(x)
            loss = ((out - y) ** 2).mean()
        return loss, out

    def train_epoch(self, dl, optimizer):
        epoch_ll = 0
        for i, data in enumerate(dl):
            loss, out = self.regression(data)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_ll += loss.item()
        return epoch_ll / len(dl)

    def eval_epoch(self, dl):
        epoch_ll = 0
        outs = []
        for i, data in enumerate(dl):
            loss, out = self.regression(data, track_gradient=False)
            epoch_ll += loss
            outs.append(out)
        return epoch_ll / len(dl), outs

    def fit(self, train_dl, valid_dl, epochs):
        optimizer = torch.optim.SGD(self.parameters(), lr=0.05)
        for epoch in range(epochs):
            train_ll = self.train_epoch(train_dl, optimizer)
            valid_ll, outs = self.eval_epoch(valid_dl)
            print(f"epoch {epoch} train {train_ll:.6f} valid {float(valid_ll):.6f} outputs {len(outs)}")


net = Net()
data = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(ITERS)]
net.fit(data, data, 2)
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
