# expect-before: error unexpected keyword argument 'retain_variables'
# torch.autograd.backward over several outputs, then once more through the
# same graph: the first call must keep it.
import torch
from torch import autograd

torch.manual_seed(0)
w = torch.randn(4, requires_grad=True)
x = torch.randn(8, 4)
y = torch.sigmoid(x @ w)
outs = [y.sum(), y.pow(2).sum()]
autograd.backward(outs, [torch.tensor(1.0), torch.tensor(0.5)], retain_variables=True)
first = w.grad.clone()
autograd.backward([y.mean()])
print(" ".join("%.6f" % v for v in first.tolist()))
print(" ".join("%.6f" % v for v in w.grad.tolist()))
