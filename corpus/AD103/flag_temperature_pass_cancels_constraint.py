# expect-before: runs
# A constrained policy step with a learned multiplier (BEAR's shape, written
# inline in a training function): the multiplier's loss is the negated
# constraint term, backwarded with retain_graph=True; it also writes
# -d(constraint) into the policy, whose gradients were cleared before it, and
# the actor loss adds +constraint before the policy's step: the constraint's
# gradient cancels and the policy never feels it. It runs.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train_step(policy, log_alpha, policy_optim, alpha_optim, obs, behaviour, threshold=0.05):
    actions = policy(obs)
    actor_loss = -actions.sum(dim=1).mean()
    policy_optim.zero_grad()
    alpha = log_alpha.exp()
    constraint = (alpha * ((actions - behaviour).pow(2).mean() - threshold)).mean()
    alpha_optim.zero_grad()
    alpha_loss = -constraint
    alpha_loss.backward(retain_graph=True)
    alpha_optim.step()
    total = actor_loss + constraint
    total.backward()
    policy_optim.step()
    return total.item()


def main():
    policy = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 2))
    log_alpha = nn.Parameter(torch.zeros(1))
    policy_optim = torch.optim.SGD(policy.parameters(), lr=0.05)
    alpha_optim = torch.optim.SGD([log_alpha], lr=0.05)
    for it in range(ITERS):
        obs = torch.randn(16, 5)
        behaviour = torch.zeros(16, 2)
        loss = train_step(policy, log_alpha, policy_optim, alpha_optim, obs, behaviour)
        print(f"{it} loss {loss:.6f} alpha {log_alpha.exp().item():.6f}")


if __name__ == "__main__":
    main()
