import torch
from torch import nn


class DecayCell(nn.Module):
    """A recurrent cell whose state decays with the time gap between steps."""

    def __init__(self, n_in, n_hidden):
        super().__init__()
        self.n_hidden = n_hidden
        self.gates = nn.Linear(n_in + n_hidden, 2 * n_hidden)

    def forward(self, x, gaps):
        h = x.new_zeros(x.shape[0], self.n_hidden)
        outs = []
        for t in range(x.shape[1]):
            z, c = self.gates(torch.cat([x[:, t], h], 1)).chunk(2, 1)
            h = torch.sigmoid(z) * h * torch.exp(-gaps[:, t:t + 1]) + torch.tanh(c)
            outs.append(h)
        return torch.stack(outs, 1)
