# expect-before: runs
# autodetach-test: unsafe
# A script whose `test(epoch)` is called as a bare statement after each
# epoch's training: nothing turns gradients off and its result is dropped,
# so it cannot be what a backward uses. The model (a module-level global,
# returning two loss terms) builds a graph for every test batch, and the
# sums keep all of them until the function returns. That no other file
# calls `test` under no_grad is inferred, so the fix is unsafe.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class TwoTerms(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(6, 4)
        self.dec = nn.Linear(4, 6)

    def forward(self, x):
        z = torch.tanh(self.enc(x))
        rec_loss = (self.dec(z) - x).pow(2).mean()
        reg_loss = z.pow(2).mean()
        return rec_loss, reg_loss, z


def train(epoch):
    for data in train_data:
        optimizer.zero_grad()
        rec_loss, reg_loss, _ = model(data)
        loss = rec_loss + 0.1 * reg_loss
        loss.backward()
        optimizer.step()


def test(epoch):
    mean_rec_loss, mean_reg_loss = 0, 0
    for data in test_data:
        rec_loss, reg_loss, _ = model(data)
        mean_rec_loss += rec_loss
        mean_reg_loss += reg_loss
    mean_rec_loss /= len(test_data)
    mean_reg_loss /= len(test_data)
    print("epoch {} test rec {:.6f} reg {:.6f}".format(epoch, float(mean_rec_loss), float(mean_reg_loss)))


torch.manual_seed(0)
train_data = [torch.randn(8, 6) for _ in range(ITERS)]
test_data = [torch.randn(8, 6) for _ in range(ITERS)]
model = TwoTerms()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(1, 3):
    train(epoch)
    test(epoch)
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
