# The model of ok_optimizers_from_model_method/train.py (not a case itself).
import torch
from torch import nn


class AdaptNet(nn.Module):
    """A feature extractor, a classifier and a domain discriminator, with a
    method that builds one optimizer for the first two and one for the third."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
        self.classifier = nn.Linear(8, 3)
        self.D = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, x):
        feat = self.features(x)
        return feat, self.classifier(feat)

    def forward_D(self, feat):
        return self.D(feat)

    def get_optimizer(self, lr):
        opt = torch.optim.SGD([*self.features.parameters(), *self.classifier.parameters()], lr=lr, momentum=0.9)
        opt_D = torch.optim.SGD(self.D.parameters(), lr=lr, momentum=0.9)
        return opt, opt_D
