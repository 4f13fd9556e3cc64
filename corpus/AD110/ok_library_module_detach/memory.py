"""A node memory kept across batches; detach() cuts it in place (as torch_geometric's TGNMemory)."""
import torch
import torch.nn as nn


class NodeMemory(nn.Module):
    def __init__(self, nodes, dim):
        super().__init__()
        self.cell = nn.GRUCell(dim, dim)
        self.register_buffer("state", torch.zeros(nodes, dim))

    def forward(self, ids):
        return self.state[ids]

    def update_state(self, ids, msg):
        self.state[ids] = self.cell(msg, self.state[ids])

    def detach(self):
        self.state.detach_()
