# expect-before: runs
# MAML with a learned inner learning rate: the meta gradient for the variables
# is taken with retain_graph=True because a second autograd.grad walks the same
# task graph for the learning rate. The model comes from the abstract
# `learner.compute_model()` of learner.py; the retain is needed all the same.
import os

import torch

from learner import MetaLearner

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class MAML:
    def __init__(self, learner, tasks=3):
        self.learner = learner
        self.tasks = tasks
        self.log_lr = torch.nn.Parameter(torch.tensor(-3.0))
        self.optimizer = torch.optim.SGD([*learner.parameters(), self.log_lr], lr=0.01)

    def fit(self, steps):
        variables = self.learner.variables
        for step in range(steps):
            self.optimizer.zero_grad()
            for task in range(self.tasks):
                adapted = variables
                loss, _ = self.learner.compute_model(self.learner.get_batch(), adapted)
                grads = torch.autograd.grad(loss, adapted, create_graph=True, retain_graph=True)
                adapted = [v - self.log_lr.exp() * g for v, g in zip(adapted, grads)]
                meta_loss, _ = self.learner.compute_model(self.learner.get_batch(), adapted)
                meta_grads = torch.autograd.grad(
                    meta_loss,
                    variables,
                    grad_outputs=torch.ones_like(meta_loss),
                    retain_graph=True)
                lr_grad, = torch.autograd.grad(meta_loss, [self.log_lr])
                for v, g in zip([*variables, self.log_lr], [*meta_grads, lr_grad]):
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
    maml = MAML(learner)
    maml.fit(ITERS)
    print(f"checksum {sum(p.sum().item() for p in learner.parameters()) + maml.log_lr.item():.6f}")


if __name__ == "__main__":
    main()
