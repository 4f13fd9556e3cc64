# The model of flag_model_clear_grouped_params/train.py (not a case itself).
from torch import nn


class Converter(nn.Module):
    """An encoder shared by a decoder and an adversarial speaker classifier."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh())
        self.decoder = nn.Linear(8, 6)
        self.classifier = nn.Linear(8, 3)

    def forward(self, x):
        hidden = self.encoder(x)
        return self.decoder(hidden), self.classifier(hidden)

    def grouped_parameters(self):
        main = list(self.encoder.parameters()) + list(self.decoder.parameters())
        return main, [p for p in self.classifier.parameters()]

