"""The project's autograd Functions, 0.3 style (train.py imports them): a
ReLU whose gradient also passes where the input is slightly negative."""
from torch.autograd import Function


class LeakyClamp(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return x.clamp(min=0)

    def backward(self, grad_output):
        x, = self.saved_tensors
        return grad_output * (x > -0.1).float()
