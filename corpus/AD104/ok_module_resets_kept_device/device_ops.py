"""A small state-vector simulator: gates update the device's state in place of
the old one, so the state carries the graph of every gate applied since the
last reset."""
import torch


class Device:
    def __init__(self, n):
        self.n = n
        self.reset()

    def reset(self):
        self.state = torch.ones(self.n) / self.n ** 0.5


def rotate(dev, angles):
    dev.state = dev.state * torch.cos(2 * angles) + 0.1 * torch.sin(2 * angles)


def expectation(dev):
    return (dev.state ** 2).sum()
