# Negative: per-chunk losses are appended to a list across loop iterations and
# backwarded once as a stacked mean by a helper in utils.py (an episode-level
# loss, as REINFORCE code does). The list must keep the graphs: .item() or
# .detach() on the append would stop learning. Correct: no fix.
import torch
import torch.nn as nn

from utils import finish_episode


def main():
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
    opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
    for episode in range(4):
        losses = []
        for t in range(5):
            dist = torch.distributions.Categorical(logits=policy(torch.randn(1, 4)))
            a = dist.sample()
            losses.append(-dist.log_prob(a) * float(t % 2))
        finish_episode(opt, losses)
    print(sum(p.sum().item() for p in policy.parameters()))


if __name__ == "__main__":
    main()
