# expect-before: runs
# The shape of flag_model_clear_grouped_params with both losses backwarded
# before either optimizer steps: every backward walks the weights its graph
# saved. (The classifier loss's gradients reach the encoder too and add up
# with the main loss's, as in the original's first pass.)
import os

import torch
import torch.nn.functional as F

from nets import Converter

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = Converter()
main_params, cls_params = model.grouped_parameters()
opt_main = torch.optim.Adam(main_params, lr=0.01)
opt_cls = torch.optim.Adam(cls_params, lr=0.01)

for it in range(ITERS):
    x = torch.randn(8, 6)
    speaker = torch.randint(0, 3, (8,))
    model.zero_grad()
    recon, logits = model(x)
    loss_main = F.mse_loss(recon, x)
    loss_cls = F.cross_entropy(logits, speaker)
    loss_main.backward(retain_graph=True)
    loss_cls.backward()
    opt_main.step()
    opt_cls.step()
    print(f"{it} {loss_main.item():.6f} {loss_cls.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f} of {ITERS}")
