"""A learning-rate warmup around an optimizer: the trainer calls the wrapper."""


class WarmupOptim:
    def __init__(self, optimizer, base_lr, warmup_steps=100):
        self._optimizer = optimizer
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self.n_steps = 0

    def zero_grad(self):
        self._optimizer.zero_grad()

    def _update_lr(self):
        self.n_steps += 1
        lr = self.base_lr * min(1.0, self.n_steps / self.warmup_steps)
        for group in self._optimizer.param_groups:
            group["lr"] = lr

    def step_and_update_lr(self):
        self._update_lr()
        self._optimizer.step()
