import torch


def record(store, t):
    store.append(t)


def add_to(total, t):
    return total + t


def step_loss(model, x):
    return (model(x) ** 2).mean()


def scaled_backward(scaler, loss):
    scaler.scale(loss).backward()


class Meter:
    def __init__(self):
        self.sum = 0.0
        self.n = 0

    def update(self, v):
        self.sum += v
        self.n += 1
