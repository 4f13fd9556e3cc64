# expect-before: runs
# Making a fresh leaf from another tensor's data, as style-transfer code did.
import torch
from torch.autograd import Variable

torch.manual_seed(0)
content = torch.randn(2, 3)
target = torch.randn(2, 3)
img = content.detach().requires_grad_()
opt = torch.optim.SGD([img], lr=0.5)
for step in range(3):
    loss = ((img - target) ** 2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{step} {loss.item():.6f} {content.sum().item():.6f}")
