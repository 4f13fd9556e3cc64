import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class HalfGrad(torch.autograd.Function):
    """Identity forward; halves the gradient flowing back into the LSTM."""

    def forward(self, x):
        return x.clone()

    def backward(self, grad):
        return grad * 0.5


class Forecaster(nn.Module):
    def __init__(self, n_sensors, n_hidden, n_layers, dropout=0.1):
        super(Forecaster, self).__init__()
        self.rnn = nn.LSTM(n_sensors, n_hidden, n_layers, dropout=dropout)
        self.head = nn.Linear(n_hidden, n_sensors)
        self.n_hidden = n_hidden
        self.n_layers = n_layers
        nn.init.xavier_uniform(self.head.weight)
        nn.init.constant(self.head.bias, 0)

    def forward(self, x, hidden):
        out, hidden = self.rnn(x, hidden)
        out = HalfGrad()(out)
        return x + self.head(F.tanh(out)), hidden  # predicts the change

    def init_hidden(self, bsz):
        weight = next(self.parameters()).data
        return (Variable(weight.new(self.n_layers, bsz, self.n_hidden).zero_()),
                Variable(weight.new(self.n_layers, bsz, self.n_hidden).zero_()))
