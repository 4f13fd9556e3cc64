# expect-before: runs
# autodetach-test: unsafe
# An epoch logger from the project's logx.py, made through the module
# (`logx.EpochLogger()`). Its `store(**kwargs)` appends each keyword's value
# to a list kept until the epoch ends; the update step hands it the critic's
# and the actor's losses as tensors, so every update's graph stays alive for
# the whole epoch. What the logger keeps is inferred from its code in another
# file: the fix is offered as unsafe.
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
        logger.store(LossQ=q_loss, LossPi=pi_loss)
    return logger.mean("LossQ"), logger.mean("LossPi")


if __name__ == "__main__":
    torch.manual_seed(0)
    actor = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    critic = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
    data = [(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1)) for _ in range(ITERS)]
    lq, lp = run(actor, critic, data)
    print(f"loss_q {lq:.6f} loss_pi {lp:.6f}")
    print(f"checksum {sum(p.sum().item() for m in (actor, critic) for p in m.parameters()):.6f}")
