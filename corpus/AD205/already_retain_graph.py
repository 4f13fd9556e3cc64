# expect-before: runs
# Current code: retain_graph= is the right name already.
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
y = (w.exp() * 2).sum()
y.backward(retain_graph=True)
y.backward()
print(" ".join("%.6f" % v for v in w.grad.tolist()))
