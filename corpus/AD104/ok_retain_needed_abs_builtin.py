# expect-before: runs
# The second loss takes the builtin `abs()` of the shared output: `abs(t)`
# calls `Tensor.__abs__`, which keeps the graph (unlike `float(t)`), so the
# second backward walks the graph the first one retained. The retain is needed.
import os

import torch

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(ITERS):
    out = model(torch.randn(8, 3))
    opt.zero_grad()
    (out ** 2).mean().backward(retain_graph=True)
    l1 = abs(out).mean()
    l1.backward()
    opt.step()
print(f"weight sum {model.weight.sum().item():.6f} after {ITERS} steps")
