# expect-before: runs
# A notebook-style loop acts through `pilot.decide(obs, carry)` (model.py),
# which runs the GRU on `carry` with gradients on and returns a number and
# the new state. Each step's state is pushed into a memory that keeps it as
# it is, and fed back as `carry = new_carry`: every stored state holds the
# chain of all earlier acting steps. The learner reads the stored states
# detached, but the analysis does not follow what reads the memory, so the
# finding carries no fix (a backward through a stored state would need the
# chain).
import os

import torch

from memory import EpisodeMemory
from model import Pilot, learn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

pilot = Pilot()
opt = torch.optim.SGD(pilot.parameters(), lr=0.05)
memory = EpisodeMemory()
obs, carry = torch.randn(2), torch.zeros(1, 1, 8)
for t in range(ITERS * 3):
    action, new_carry = pilot.decide(obs, carry)
    memory.push(obs, carry)
    carry = new_carry
    obs = torch.randn(2) + action
    if len(memory.items) >= ITERS:
        loss = learn(pilot, opt, memory, ITERS)
print(f"loss {loss:.6f}")
