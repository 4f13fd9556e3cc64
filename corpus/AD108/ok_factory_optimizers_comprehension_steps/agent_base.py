# The base agent of ok_factory_optimizers_comprehension_steps/train.py (not a case itself).
from functools import partial

import torch
from torch import nn


class BaseAgent(nn.Module):
    """Chooses the optimizer class from a string at run time, and runs one
    backward and step per network."""

    def __init__(self, optimizer="adam"):
        super().__init__()
        self._optimizer = optimizer

    def _get_optimizer(self, optimizer, model, lr):
        if optimizer == "adam":
            get_optim = partial(torch.optim.Adam, betas=(0.9, 0.999))
        elif optimizer == "sgd":
            get_optim = partial(torch.optim.SGD, momentum=0.9)
        else:
            raise ValueError(f"unknown optimizer {optimizer}")
        return get_optim(filter(lambda p: p.requires_grad, model.parameters()), lr=lr)

    def _perform_update(self, loss, opt, network):
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(network.parameters(), 10.0)
        opt.step()
