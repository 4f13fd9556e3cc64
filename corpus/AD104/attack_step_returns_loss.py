# expect-before: runs
# autodetach-test: unsafe
# An adversarial-patch attack in the shape of attack libraries: `_train_step`
# backwards the attack loss once per batch with retain_graph=True, updates the
# patch under no_grad and returns the loss; `generate` keeps it in `_` until
# the next step. No later backward uses the graph, so the retain only keeps
# the model's activations of one batch alive on top of the next one. That
# every caller drops the result is inferred from the project's calls (code
# out of sight could call `_train_step` too): the fix is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class PatchAttack:
    def __init__(self, model, size, step_size=0.05):
        self.model = model
        self.step_size = step_size
        self._patch = torch.full((size,), 0.5, requires_grad=True)

    def _loss(self, images, target):
        patched = images + self._patch
        return nn.functional.cross_entropy(self.model(patched), target)

    def _train_step(self, images, target):
        self.model.zero_grad()
        loss = self._loss(images, target)
        loss.backward(retain_graph=True)
        with torch.no_grad():
            self._patch -= self.step_size * self._patch.grad.sign()
            self._patch.clamp_(0.0, 1.0)
        self._patch.grad = None
        return loss

    def generate(self, batches):
        for images, target in batches:
            _ = self._train_step(images, target)
        return self._patch.detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    attack = PatchAttack(model, 6)
    for step in range(ITERS):
        batches = [(torch.rand(4, 6), torch.randint(0, 3, (4,))) for _ in range(2)]
        patch = attack.generate(batches)
        print(step, " ".join(f"{v:.6f}" for v in patch.tolist()))
