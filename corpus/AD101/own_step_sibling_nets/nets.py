import torch
import torch.nn as nn


class RecurrentPolicy(nn.Module):
    def __init__(self, n_obs, n_hidden, n_act):
        super().__init__()
        self.cell = nn.LSTMCell(n_obs, n_hidden)
        self.head = nn.Linear(n_hidden, n_act)
        self.n_hidden = n_hidden

    def forward(self, obs, state):
        state = self.cell(obs, state)
        return self.head(state[0]), state

    def initial(self, batch=1):
        return (torch.zeros(batch, self.n_hidden), torch.zeros(batch, self.n_hidden))
