# The model of ok_trainer_clears_module_grouped_params/train.py (not a case itself).
from torch import nn


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 7), nn.Tanh())
        self.recon = nn.Linear(7, 5)
        self.aux = nn.Linear(7, 2)

    def forward(self, x):
        h = self.trunk(x)
        return self.recon(h), self.aux(h)

    def grouped_parameters(self):
        body = [p for name, p in self.named_parameters() if not name.startswith("aux.")]
        return body, list(self.aux.parameters())
