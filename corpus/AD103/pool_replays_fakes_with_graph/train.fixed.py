# expect-before: error Trying to backward through the graph a second time
# A CycleGAN step whose history (history.py) hands half of the batches back
# unchanged, graph included, on a coin flip rather than on a setting: the
# discriminator backward then runs into the generator graph that `g_loss.backward()`
# freed. The gradients it would put into the generators are zeroed before they
# step, so detaching the fakes handed to the history is the fix.
import itertools
import os

import torch
import torch.nn as nn

import history

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

g_ab, g_ba = nn.Linear(6, 6), nn.Linear(6, 6)
d_a, d_b = nn.Linear(6, 1), nn.Linear(6, 1)
g_opt = torch.optim.Adam(itertools.chain(g_ab.parameters(), g_ba.parameters()), lr=1e-3)
da_opt = torch.optim.Adam(d_a.parameters(), lr=1e-3)
db_opt = torch.optim.Adam(d_b.parameters(), lr=1e-3)
mse, l1 = nn.MSELoss(), nn.L1Loss()
pool_a = history.FakeHistory(50)
pool_b = history.FakeHistory(50)

for step in range(ITERS):
    real_a, real_b = torch.randn(4, 6), torch.randn(4, 6)
    fake_b = g_ab(real_a)
    fake_a = g_ba(real_b)
    out_b, out_a = d_b(fake_b), d_a(fake_a)
    g_loss = mse(out_b, torch.ones_like(out_b)) + mse(out_a, torch.ones_like(out_a)) + \
        l1(g_ba(fake_b), real_a) + l1(g_ab(fake_a), real_b)
    g_opt.zero_grad()
    g_loss.backward()
    g_opt.step()

    fake_a = pool_a.replay(fake_a.detach())
    real_out, fake_out = d_a(real_a), d_a(fake_a)
    da_loss = (mse(real_out, torch.ones_like(real_out)) + mse(fake_out, torch.zeros_like(fake_out))) * 0.5
    da_opt.zero_grad()
    da_loss.backward()
    da_opt.step()

    fake_b = pool_b.replay(fake_b.detach())
    real_out, fake_out = d_b(real_b), d_b(fake_b)
    db_loss = (mse(real_out, torch.ones_like(real_out)) + mse(fake_out, torch.zeros_like(fake_out))) * 0.5
    db_opt.zero_grad()
    db_loss.backward()
    db_opt.step()
    print(f"{g_loss.item():.6f} {da_loss.item():.6f} {db_loss.item():.6f}")
