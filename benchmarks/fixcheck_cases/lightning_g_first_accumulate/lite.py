"""A tiny stand-in for Lightning's manual optimisation API."""
import torch


class LiteModule(torch.nn.Module):
    def manual_backward(self, loss, *args, **kwargs):
        loss.backward(*args, **kwargs)

    def optimizers(self):
        return self._optimizer

    def fit(self, batches):
        self._optimizer = self.configure_optimizers()
        for i, b in enumerate(batches):
            self.training_step(b, i)
