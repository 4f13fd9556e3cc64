# expect-before: error invalid index of a 0-dim tensor
# Reductions and functional losses read as numbers, 0.3 style.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
pred = torch.randn(10, 4)
target = torch.randn(10, 4)
print("sse %.6f" % (pred - target).pow(2).sum().data[0])
err = F.l1_loss(pred, target)
print("l1 %.6f" % err.data[0])
total = F.mse_loss(pred, target) + 0.5 * torch.norm(pred)
print("total %.6f" % total.data[0])
print("first row sum %.6f" % pred.data[0].sum())
