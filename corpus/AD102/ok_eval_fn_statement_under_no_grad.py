# expect-before: runs
# eval_fn_called_as_statement, written correctly: `test(epoch)` is still a
# bare statement whose result is dropped, but it runs under
# torch.no_grad(), so the sums of its losses build no graph at all.
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
    with torch.no_grad():
        test(epoch)
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
