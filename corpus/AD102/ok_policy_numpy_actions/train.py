# expect-before: runs
# A portfolio agent (package `agents`, relative imports) builds its policy
# from a class handed in as a parameter whose default is the project's
# `Policy`; that policy's forward returns `mu(...).detach().numpy()`, and the
# agent keeps every action in a memory it reads back as the next input. No
# action carries a graph (training recomputes `mu` from the stored arrays):
# nothing to report, and a `.detach()` on the stored array would crash.
import os

import numpy as np
import torch

from agents.algorithms import PolicyGradient

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
rng = np.random.default_rng(0)

if __name__ == "__main__":
    agent = PolicyGradient()
    for epoch in range(ITERS):
        agent.train([rng.standard_normal(4).astype(np.float32) for _ in range(ITERS)])
        print(f"epoch {epoch} last {agent.memory.last()[0]:.6f}")
    print(f"checksum {sum(p.sum().item() for p in agent.policy.parameters()):.6f}")
