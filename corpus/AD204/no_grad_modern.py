# expect-before: runs
# Modern evaluation (no volatile): nothing for AD204.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 2)
model.eval()
with torch.no_grad():
    out = model(torch.randn(4, 3))
print(f"{out.sum().item():.6f} {out.requires_grad}")
