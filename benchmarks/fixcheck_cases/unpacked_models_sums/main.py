# expect-before: runs
# autodetach-test: unsafe
# A training function that receives its networks, optimizers and losses as
# lists and unpacks them (`[encoder, regressor, domain] = models`), as
# multi-network training code often does. The epoch sums `task_total` and
# `domain_total` add the backwarded losses with their graphs, so every batch's
# graph stays alive until the epoch ends; the sums are only averaged and
# returned (the steps run inside an `if`, and a backward there frees each
# graph, so no caller can backward the sums). That the unpacked names are
# networks and optimizers is inferred from how they are used: the fix is
# offered as unsafe.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_epoch(models, optimizers, criterions, batches, full=8):
    [encoder, regressor, domain] = models
    [optimizer, optimizer_dm] = optimizers
    [criterion, domain_criterion] = criterions
    encoder.train()
    regressor.train()
    task_total = 0
    domain_total = 0
    steps = 0
    for x, y, d in batches:
        if len(x) == full:  # a short last batch is skipped
            optimizer.zero_grad()
            features = encoder(x)
            loss = criterion(regressor(features), y)
            loss.backward()
            optimizer.step()
            optimizer_dm.zero_grad()
            loss_dm = domain_criterion(domain(features.detach()), d)
            loss_dm.backward()
            optimizer_dm.step()
            task_total += loss
            domain_total += loss_dm
            steps += 1
    return task_total / steps, domain_total / steps


if __name__ == "__main__":
    torch.manual_seed(0)
    nets = [nn.Linear(6, 8), nn.Linear(8, 1), nn.Linear(8, 3)]
    opts = [torch.optim.SGD(list(nets[0].parameters()) + list(nets[1].parameters()), lr=0.05),
            torch.optim.SGD(nets[2].parameters(), lr=0.05)]
    data = [(torch.randn(8, 6), torch.randn(8, 1), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
    task, dom = train_epoch(nets, opts, [nn.MSELoss(), nn.CrossEntropyLoss()], data)
    print(f"task {float(task):.6f} domain {float(dom):.6f}")
    print(f"checksum {sum(p.sum().item() for m in nets for p in m.parameters()):.6f}")
