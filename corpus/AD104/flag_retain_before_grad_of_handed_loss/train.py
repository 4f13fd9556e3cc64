# expect-before: runs
# The GradNorm shape (mtrl): a method is handed the batch's loss
# and turns it into per-task losses with a base class's method (base.py). It
# backwards the weighted sum with retain_graph=True, then takes
# `torch.autograd.grad` of each task's loss, which walks the same graph again
# (the per-task losses and the loss handed in). The analysis sees no graph in
# `task_loss` (it hangs from the argument), so it cannot tell whether those
# grads need the retain: reported, and dropping it is unsafe (it would raise
# here), saying what was inferred.
import os

import torch
import torch.nn as nn

from base import MultiTaskAgent

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GradNormAgent(MultiTaskAgent):
    def __init__(self, num_tasks):
        super().__init__(num_tasks)
        self.task_weights = {}
        self.weight_optimizers = {}

    def _new_weights(self):
        task_weights = torch.nn.Parameter(torch.ones(self.num_tasks))
        return task_weights, torch.optim.SGD([task_weights], lr=0.01)

    def compute_gradient(self, loss, task_index, shared, name="all"):
        task_loss = self.per_task_loss(loss, task_index)
        if name not in self.task_weights:
            self.task_weights[name], self.weight_optimizers[name] = self._new_weights()
        task_weights = self.task_weights[name]
        weighted = torch.mul(task_weights, task_loss)
        weighted.sum().backward(retain_graph=True)
        task_weights.grad.zero_()
        norms = []
        for index in range(self.num_tasks):
            grads = torch.autograd.grad(task_loss[index], shared, retain_graph=(index != self.num_tasks - 1))
            norms.append(torch.linalg.vector_norm(task_weights[index] * torch.cat([g.flatten() for g in grads])))
        norm_loss = torch.stack(norms).sum()
        task_weights.grad = torch.autograd.grad(norm_loss, task_weights)[0]
        self.weight_optimizers[name].step()


trunk = nn.Linear(4, 6)
head = nn.Linear(6, 1)
optimizer = torch.optim.SGD(list(trunk.parameters()) + list(head.parameters()), lr=0.05)
agent = GradNormAgent(num_tasks=3)
for step in range(ITERS):
    x = torch.randn(12, 4)
    task_index = torch.arange(12) % 3
    loss = (head(torch.relu(trunk(x))).squeeze(1) - 1.0).pow(2)
    optimizer.zero_grad()
    # dispatched by name, as mtrl hands the method on as a callback: its walk is judged alone
    getattr(agent, "compute_gradient")(loss, task_index, list(trunk.parameters()))
    optimizer.step()
print(f"{agent.task_weights['all'].sum().item():.6f} {ITERS}")
