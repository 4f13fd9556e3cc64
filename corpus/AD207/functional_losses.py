# expect-before: runs
# Functional losses with legacy arguments, as 0.3-era training code wrote them.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
logits = torch.randn(5, 4)
labels = torch.randint(0, 4, (5,))
probs = torch.sigmoid(torch.randn(5))
flags = torch.randint(0, 2, (5,)).float()
nll = F.nll_loss(F.log_softmax(logits, dim=1), labels, size_average=False)
bce = F.binary_cross_entropy(probs, flags, reduce=False)
kl = F.kl_div(F.log_softmax(logits, dim=1), F.softmax(logits.flip(0), dim=1),
              size_average=False, reduce=True)
print("nll %.6f" % nll.item())
print("bce", " ".join("%.6f" % v for v in bce.tolist()))
print("kl %.6f" % kl.item())
