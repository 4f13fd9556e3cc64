# Learned inputs (dataset distillation): requires_grad leaves created in a loop and
# kept in lists the optimizer trains. No graph is kept; a .detach() of what the lists
# hold would leave the optimizer stepping tensors the loss never reaches.
import torch

from distiller import Distiller

torch.manual_seed(0)
distiller = Distiller(torch.randn(3, 5) * 0.1, steps=3, per_step=6, n_in=5, n_cls=3)
x, y = torch.randn(40, 5), torch.randint(0, 3, (40,))
for it in range(6):
    print(it, round(distiller.step(x, y), 6))
