"""A sequence model that keeps its LSTM state between calls, and a method
that cuts it; the training loops (train.py) decide when to call it."""
import torch
from torch import nn


class StatefulLM(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.lstm = nn.LSTM(4, hidden)
        self.head = nn.Linear(hidden, 1)
        self.state = None

    def forward(self, x):
        out, self.state = self.lstm(x, self.state)
        return self.head(out)

    def detach_state(self):
        if self.state is not None:
            self.state = tuple(s.detach() for s in self.state)
