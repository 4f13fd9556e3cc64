import torch
from torch import nn


class PatchAttack:
    def __init__(self, model, size, lr=0.05):
        self.model = model
        self._patch = torch.full((size,), 0.5, requires_grad=True)
        self._optimizer = torch.optim.Adam([self._patch], lr=lr)

    def _loss(self, images, target):
        return nn.functional.cross_entropy(self.model(images + self._patch), target)

    def _train_step(self, images, target):
        self._optimizer.zero_grad()
        loss = self._loss(images, target)
        loss.backward(retain_graph=True)
        self._optimizer.step()
        with torch.no_grad():
            self._patch.clamp_(0.0, 1.0)
        return loss

    def generate(self, batches, iters):
        for _ in range(iters):
            for images, target in batches:
                _ = self._train_step(images, target)
        return self._patch.detach()
