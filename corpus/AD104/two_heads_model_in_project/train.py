# expect-before: runs
# autodetach-test: unsafe
# Two networks of the project's nets.py train on the same batch: the critic's
# loss is backwarded with retain_graph=True, then the classifier's. The graphs
# share nothing (each network reads the raw batch), so the retain is not
# needed. But the networks are built out of sight (a class of another file,
# optimizers from their methods): the analysis sees no graph in `critic(x)`
# or `clf(x)`, only the two backwards that prove one, and both losses read
# `x`. That they share nothing is inferred, so the fix is unsafe (had both
# heads read one trunk's output, dropping the retain would break the run).
import os

import torch
import torch.nn.functional as F
from nets import Classifier, Critic

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

clf, critic = Classifier(), Critic()
opt_c = critic.optimizer(0.05)
opt = clf.optimizer(0.05)
for i in range(ITERS):
    x, y, v = torch.randn(8, 4), torch.randint(0, 3, (8,)), torch.randn(8, 1)
    critic_loss = F.mse_loss(critic(x), v)
    opt_c.zero_grad()
    critic_loss.backward(retain_graph=True)
    opt_c.step()
    loss = F.cross_entropy(clf(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{i} critic {critic_loss.item():.6f} clf {loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in clf.body.parameters()):.6f}")
