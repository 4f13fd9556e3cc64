# expect-before: runs
# A trainer method unpacks each batch's terminal states into a list made with
# `[None] * self.batch_size` and filled with `.tolist()` tuples: plain numbers,
# so the history of visited states that grows across iterations keeps no graph
# (gflownet's `unpack_terminal_states` and `all_visited.extend(states_term)`).
import os
import types

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Agent:
    def __init__(self, config):
        self.batch_size = config.batch_size
        self.lightweight = config.lightweight
        self.policy = nn.Linear(3, 3)
        self.opt = torch.optim.SGD(self.policy.parameters(), lr=0.1)

    def sample_batch(self):
        states = torch.randn(self.batch_size, 3)
        logits = self.policy(states)
        return [(states[i], logits[i], torch.tensor([i]), torch.tensor(i % 2 == 0)) for i in range(self.batch_size)]

    def unpack_terminal_states(self, batch):
        trajs = [[] for _ in range(self.batch_size)]
        states = [None] * self.batch_size
        for el in batch:
            traj_id = el[2][:1].item()
            trajs[traj_id].append(tuple(el[1].tolist()))
            if bool(el[3].item()):
                states[traj_id] = tuple(el[0].tolist())
        return states, [tuple(traj) for traj in trajs]

    def train(self):
        all_visited = []
        for it in range(ITERS):
            batch = self.sample_batch()
            loss = torch.stack([logits.pow(2).sum() for _, logits, _, _ in batch]).mean()
            loss.backward()
            self.opt.step()
            self.opt.zero_grad()
            states_term, trajs_term = self.unpack_terminal_states(batch)
            if self.lightweight:
                all_visited = states_term
            else:
                all_visited.extend(states_term)
            print(f"{loss.item():.6f} {len(all_visited)}")


agent = Agent(types.SimpleNamespace(batch_size=4, lightweight=False))
agent.train()
print(f"{sum(p.sum().item() for p in agent.policy.parameters()):.6f}")
