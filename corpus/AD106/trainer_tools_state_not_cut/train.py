# expect-before: error Trying to backward through the graph a second time
# A Trainer whose epoch loop carries a GRU state across chunks through
# `tools.detach_state(state)`, a method of the project's StateTools
# (lib/state_tools.py) that, despite its name, returns `state.contiguous()`
# or a list of its own recursive calls: the state keeps the previous chunk's
# graph, freed by its backward. The fix detaches the state fed back.
import os

import torch
import torch.nn as nn

from lib.state_tools import StateTools

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, net, head):
        self.net = net
        self.head = head
        self.opt = torch.optim.Adam(list(net.parameters()) + list(head.parameters()), lr=1e-2)

    def fit(self, chunks, tools):
        state = None
        losses = []
        for x, y in chunks:
            state = tools.detach_state(state)
            out, state = self.net(x, state)
            loss = ((self.head(out) - y) ** 2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            losses.append(loss.item())
        return losses


if __name__ == "__main__":
    torch.manual_seed(0)
    tools = StateTools()
    trainer = Trainer(nn.GRU(4, 8, batch_first=True), nn.Linear(8, 1))
    data = [(torch.randn(2, 5, 4), torch.randn(2, 5, 1)) for _ in range(ITERS)]
    print(f"loss {sum(trainer.fit(data, tools)):.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.net.parameters()):.6f}")
