import torch


class NoisyOptimizer:
    """Adds a little noise to every gradient before the wrapped optimizer steps."""

    def __init__(self, optimizer, noise):
        self.optimizer = optimizer
        self.noise = noise
        self.gen = torch.Generator().manual_seed(1)

    def zero_grad(self):
        self.optimizer.zero_grad()

    def step(self):
        for group in self.optimizer.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad.add_(self.noise * torch.randn(p.grad.shape, generator=self.gen))
        self.optimizer.step()


class PrivacyEngine:
    def make_private(self, module, optimizer, data_loader, noise_multiplier=0.01):
        return module, NoisyOptimizer(optimizer, noise_multiplier), data_loader
