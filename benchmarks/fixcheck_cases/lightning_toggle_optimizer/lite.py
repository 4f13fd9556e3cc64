"""A tiny stand-in for Lightning's manual optimisation API, with toggle_optimizer."""
import torch


class LiteModule(torch.nn.Module):
    def manual_backward(self, loss, *args, **kwargs):
        loss.backward(*args, **kwargs)

    def optimizers(self):
        return self._optimizers

    def toggle_optimizer(self, opt):
        # as Lightning: only the toggled optimizer's parameters require grad
        mine = {id(p) for g in opt.param_groups for p in g["params"]}
        self._saved = {}
        for o in self._optimizers:
            for g in o.param_groups:
                for p in g["params"]:
                    self._saved[p] = p.requires_grad
                    p.requires_grad_(id(p) in mine)

    def untoggle_optimizer(self, opt):
        for p, flag in self._saved.items():
            p.requires_grad_(flag)

    def fit(self, batches):
        self._optimizers = self.configure_optimizers()
        for i, b in enumerate(batches):
            self.training_step(b, i)
