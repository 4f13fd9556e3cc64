import torch.nn as nn

REGISTRY = {}


def register(name):
    def deco(fn):
        REGISTRY[name] = fn
        return fn
    return deco


@register("gen")
def make_gen():
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))


@register("disc")
def make_disc():
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def build(names):
    return {n: REGISTRY[n]() for n in names}
