"""A gradient balancer for multi-task training: each task's gradient on the
shared parameters is rescaled to the magnitude of the first task's."""
import torch
from torch.optim.optimizer import Optimizer


class GradBalancer(Optimizer):
    def __init__(self, params, relax=0.7):
        super().__init__(params, dict(relax=relax))

    @torch.no_grad()
    def step(self, losses):
        self._balance(losses)

    def _balance(self, losses):
        sums = {}
        first = {}
        for index, loss in enumerate(losses):
            for group in self.param_groups:
                for p in group["params"]:
                    p.grad = None
            loss.backward(retain_graph=index < len(losses) - 1)
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    norm = p.grad.norm() + 1e-12
                    if index == 0:
                        first[p] = norm
                    scaled = p.grad * (first[p] / norm) * group["relax"] + p.grad * (1 - group["relax"])
                    sums[p] = sums[p] + scaled if p in sums else scaled
        for p, total in sums.items():
            p.grad = total
