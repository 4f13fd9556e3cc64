# expect-before: runs
# The epoch logger of logger_kwargs, given numbers: `store(**kwargs)` keeps
# `q_loss.item()` and `pi_loss.item()`, which hold no graph. Nothing to report.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

import logx

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def run(actor, critic, batches):
    pi_opt = torch.optim.SGD(actor.parameters(), lr=0.05)
    q_opt = torch.optim.SGD(critic.parameters(), lr=0.05)
    logger = logx.EpochLogger()
    for obs, act, ret in batches:
        q = critic(torch.cat([obs, act], 1))
        q_loss = F.mse_loss(q, ret)
        q_opt.zero_grad()
        q_loss.backward()
        q_opt.step()
        pi_loss = -critic(torch.cat([obs, actor(obs)], 1)).mean()
        pi_opt.zero_grad()
        pi_loss.backward()
        pi_opt.step()
        logger.store(LossQ=q_loss.item(), LossPi=pi_loss.item())
    return logger.mean("LossQ"), logger.mean("LossPi")


if __name__ == "__main__":
    torch.manual_seed(0)
    actor = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    critic = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
    data = [(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1)) for _ in range(ITERS)]
    lq, lp = run(actor, critic, data)
    print(f"loss_q {lq:.6f} loss_pi {lp:.6f}")
    print(f"checksum {sum(p.sum().item() for m in (actor, critic) for p in m.parameters()):.6f}")
