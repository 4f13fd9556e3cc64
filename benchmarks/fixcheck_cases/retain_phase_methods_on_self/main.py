import torch

from model import Inpainter

model = Inpainter()
for step in range(5):
    model.set_input(torch.randn(4, 8))
    model.optimize_parameters()
    print(step, {k: round(v.item(), 6) for k, v in model.loss.items()})
