# expect-before: runs
# A meta-attack's inner training: `adj_norm` is built once, before the inner
# loop, from `modified_adj`, which the caller computed from the perturbation
# `self.adj_changes`. Every inner step backwards through `adj_norm` again
# (the gradient is asked for `self.adj_changes`, which only that graph
# reaches), so both retain_graph=True are needed: dropping the second one
# fails at the next step with "backward through the graph a second time".
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Attack(nn.Module):
    def __init__(self, n, d, c):
        super().__init__()
        self.adj_changes = nn.Parameter(torch.zeros(n, n))
        self.w = nn.Parameter(torch.randn(d, c) * 0.1)
        self.optimizer = torch.optim.Adam([self.w], lr=0.01)
        self.grad_sum = torch.zeros(n, n)

    def modified_adj(self, adj):
        return adj + torch.tanh(self.adj_changes)

    def inner_train(self, features, modified_adj, labels):
        adj_norm = modified_adj / modified_adj.sum(1, keepdim=True)
        for j in range(ITERS):
            output = F.log_softmax(adj_norm @ features @ self.w, dim=1)
            loss = F.nll_loss(output, labels)
            self.optimizer.zero_grad()
            loss.backward(retain_graph=True)
            self.grad_sum += torch.autograd.grad(loss, self.adj_changes, retain_graph=True)[0]
            self.optimizer.step()
            print(f"{j} loss {loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    n, d, c = 6, 4, 3
    attack = Attack(n, d, c)
    adj = torch.rand(n, n) + 0.1
    attack.inner_train(torch.randn(n, d), attack.modified_adj(adj), torch.randint(0, c, (n,)))
    print(f"checksum {attack.w.sum().item():.6f} {attack.grad_sum.sum().item():.6f}")
