# expect-before: runs
# autodetach-test: unsafe
# MAML: each task adapts the variables with create_graph=True steps, then the
# meta gradient is taken once with torch.autograd.grad(..., retain_graph=True).
# Nothing walks that task's graph again (the next task builds its own), so the
# retain only keeps the whole second-order graph alive until the next task.
# The model comes from `learner.compute_model()`, abstract in learner.py: the
# subclass that defines it (here inside main()) is not seen through the base,
# so that its result holds no graph of an earlier task is inferred: unsafe.
import os

import torch

from learner import MetaLearner

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class MAML:
    def __init__(self, learner, inner_lr=0.05, tasks=3):
        self.learner = learner
        self.inner_lr = inner_lr
        self.tasks = tasks
        self.optimizer = torch.optim.SGD(learner.parameters(), lr=0.01)

    def fit(self, steps):
        variables = self.learner.variables
        for step in range(steps):
            self.optimizer.zero_grad()
            for task in range(self.tasks):
                adapted = variables
                loss, _ = self.learner.compute_model(self.learner.get_batch(), adapted)
                grads = torch.autograd.grad(loss, adapted, create_graph=True, retain_graph=True)
                adapted = [v - self.inner_lr * g for v, g in zip(adapted, grads)]
                meta_loss, _ = self.learner.compute_model(self.learner.get_batch(), adapted)
                meta_grads = torch.autograd.grad(
                    meta_loss,
                    variables,
                    grad_outputs=torch.ones_like(meta_loss))
                for v, g in zip(variables, meta_grads):
                    v.grad = g if v.grad is None else v.grad + g
            self.optimizer.step()
            print(f"{step} meta loss {meta_loss.item():.6f}")


def main():
    class LineLearner(MetaLearner):
        def __init__(self):
            self.w = torch.nn.Parameter(torch.randn(3, 1))
            self.b = torch.nn.Parameter(torch.zeros(1))

        def compute_model(self, inputs, variables):
            x, y = inputs
            w, b = variables
            out = torch.tanh(x @ w + b)
            return ((out - y) ** 2).mean(), out

        @property
        def variables(self):
            return [self.w, self.b]

        def get_batch(self):
            x = torch.randn(16, 3)
            return x, x.sum(1, keepdim=True).tanh()

        def parameters(self):
            return [self.w, self.b]

    torch.manual_seed(0)
    learner = LineLearner()
    MAML(learner).fit(ITERS)
    print(f"checksum {sum(p.sum().item() for p in learner.parameters()):.6f}")


if __name__ == "__main__":
    main()
