import torch
from torch import nn

from attack import PatchAttack

model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
for p in model.parameters():
    p.requires_grad_(False)
attack = PatchAttack(model, 6)
batches = [(torch.rand(4, 6), torch.randint(0, 3, (4,))) for _ in range(3)]
patch = attack.generate(batches, 4)
print(patch.sum().item())
