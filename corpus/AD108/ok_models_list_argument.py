# expect-before: runs
# The shape of flag_models_list_argument (networks and optimizers handed in
# as lists and unpacked, optimizers built by the caller), written correctly:
# the confusion loss computes the features again after `optimizer.step()`,
# so its backward walks only weights saved after the step.
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train_epoch(models, optimizers, batches):
    [encoder, regressor, domain_head] = models
    [optimizer, optimizer_conf] = optimizers
    for i, (data, target, domain) in enumerate(batches):
        optimizer.zero_grad()
        features = encoder(data)
        loss = F.mse_loss(regressor(features), target)
        loss.backward()
        optimizer.step()

        optimizer_conf.zero_grad()
        features = encoder(data)
        loss_conf = -F.log_softmax(domain_head(features), 1).mean()
        loss_conf.backward()
        optimizer_conf.step()
        print(f"{i} loss {loss.item():.6f} conf {loss_conf.item():.6f}")


encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 8))
regressor, domain_head = nn.Linear(8, 1), nn.Linear(8, 3)
opt = torch.optim.SGD(list(encoder.parameters()) + list(regressor.parameters()), lr=0.1)
opt_conf = torch.optim.SGD(encoder.parameters(), lr=0.01)
data = [(torch.randn(8, 6), torch.randn(8, 1), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
train_epoch([encoder, regressor, domain_head], [opt, opt_conf], data)
print(f"checksum {sum(p.sum().item() for p in encoder.parameters()):.6f}")
