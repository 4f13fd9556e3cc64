"""The project's networks (imported by train.py): an image transform network and a
frozen feature extractor, run without gradients, that returns its intermediate activations by name."""
import torch
import torch.nn as nn


class TransformNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1))

    def forward(self, x):
        return x + self.body(x)


class Features(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = pretrained_backbone().features
        for param in self.layers.parameters():
            param.requires_grad = False

    @torch.no_grad()
    def forward(self, x):
        names = {"1": "relu1", "3": "relu2"}
        out = {}
        for name, layer in self.layers._modules.items():
            x = layer(x)
            if name in names:
                out[names[name]] = x
        return out


def pretrained_backbone():
    """Stands for a library's pretrained network (`torchvision.models.vgg16()`)."""
    backbone = nn.Module()
    backbone.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1), nn.ReLU())
    return backbone


def gram(x):
    b, c, h, w = x.shape
    f = x.view(b, c, h * w)
    return f.bmm(f.transpose(1, 2)) / (c * h * w)
