# BYOL-like: an online encoder + predictor trained by one optimizer against an
# EMA target network (updated in place under no_grad). The main loss is
# backwarded, then an auxiliary variance loss on the same online projection
# z1 is backwarded before the single step. The online encoder learns from
# both. Correct: retain_graph=True on the first backward (AD105); z1.detach()
# in either loss would be wrong.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

from ema import ema_update


def main():
    torch.manual_seed(0)
    online = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
    predictor = nn.Sequential(nn.Linear(8, 8))
    target = copy.deepcopy(online)
    for p in target.parameters():
        p.requires_grad_(False)
    opt = torch.optim.SGD(list(online.parameters()) + list(predictor.parameters()), lr=0.05)
    for _ in range(6):
        x = torch.randn(16, 8)
        v1, v2 = x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x)
        z1 = online(v1)
        with torch.no_grad():
            t2 = target(v2)
        opt.zero_grad()
        loss = 2 - 2 * F.cosine_similarity(predictor(z1), t2, dim=-1).mean()
        loss.backward()
        var_loss = F.relu(1 - z1.std(0)).mean()
        var_loss.backward()
        opt.step()
        ema_update(target, online, 0.9)
    print(loss.item(), var_loss.item())


if __name__ == "__main__":
    main()
