# expect-before: error modified by an inplace operation
# A notebook-style script: the model's own method splits its parameters into
# two groups (`grouped_parameters()`, in a sibling file) and one optimizer
# takes each. The gradients are cleared on the model (`model.zero_grad()`),
# the main loss is backwarded with retain_graph and its optimizer steps the
# encoder in place; only then the classifier loss, built from the same
# forward, is backwarded through the encoder weights saved before that step.
# Reported without a fix: what `opt_main` steps is inferred from the
# backward whose gradients it applies.
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
    opt_main.step()
    loss_cls.backward()
    opt_cls.step()
    print(f"{it} {loss_main.item():.6f} {loss_cls.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f} of {ITERS}")
