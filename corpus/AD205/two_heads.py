# expect-before: error unexpected keyword argument 'retain_variables'
# Two losses share a trunk; the first backward keeps the graph for the second.
import torch
import torch.nn as nn

torch.manual_seed(0)
trunk = nn.Linear(5, 8)
head_a = nn.Linear(8, 1)
head_b = nn.Linear(8, 1)
x = torch.randn(16, 5)
feats = torch.tanh(trunk(x))
loss_a = head_a(feats).pow(2).mean()
loss_b = head_b(feats).abs().mean()
loss_a.backward(retain_variables=True)
loss_b.backward()
print("trunk grad %.6f" % trunk.weight.grad.abs().sum().item())
print("head grads %.6f %.6f" % (head_a.weight.grad.sum().item(), head_b.weight.grad.sum().item()))
