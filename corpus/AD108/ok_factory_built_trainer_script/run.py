"""The training script: the top level builds the model through the factory
and calls its phase methods, generator first."""
import os

import torch

from builder import create_model

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
model = create_model("single")
for i in range(ITERS):
    model.forward(torch.randn(8, 6))
    model.optimize_G_parameters()
    model.optimize_D_parameters()
    print(f"{i} G {model.loss_G.item():.6f} D {model.loss_D.item():.6f}")
