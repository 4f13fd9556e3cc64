# expect-before: error Legacy autograd function with non-static forward method is deprecated
# A custom ReLU in the 0.3 style: the Function is an object, called as
# MyReLU()(x), with self.save_for_backward / self.saved_tensors.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class MyReLU(torch.autograd.Function):
    def forward(self, x):
        self.save_for_backward(x)
        return x.clamp(min=0)

    def backward(self, grad_output):
        x, = self.saved_tensors
        grad = grad_output.clone()
        grad[x < 0] = 0
        return grad


torch.manual_seed(0)
w1 = torch.randn(4, 8, requires_grad=True)
w2 = torch.randn(8, 1, requires_grad=True)
x = torch.randn(16, 4)
y = torch.randn(16, 1)
for it in range(ITERS):
    pred = MyReLU()(x.mm(w1)).mm(w2)
    loss = (pred - y).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w1 -= 0.01 * w1.grad
        w2 -= 0.01 * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()
    print("%.6f" % loss.item())
print("%.6f" % (w1.sum().item() + w2.sum().item()))
