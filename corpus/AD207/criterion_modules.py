# expect-before: runs
# Loss modules configured with the 0.3 size_average/reduce pair.
import torch
import torch.nn as nn

torch.manual_seed(0)
pred = torch.randn(6, 3)
target = torch.randn(6, 3)
labels = torch.randint(0, 3, (6,))
sse = nn.MSELoss(size_average=False)
per_sample = nn.CrossEntropyLoss(reduce=False)
mean_l1 = nn.L1Loss(size_average=True, reduce=True)
print("sse %.6f" % sse(pred, target).item())
print("per sample", " ".join("%.6f" % v for v in per_sample(pred, labels).tolist()))
print("l1 %.6f" % mean_l1(pred, target).item())
