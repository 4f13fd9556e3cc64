# expect-before: runs
# Modern code: no Variable anywhere, nothing for AD202.
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.randn(4, 3)
loss = (x @ w).pow(2).sum()
loss.backward()
print(f"{loss.item():.6f} {w.grad.norm().item():.6f}")
