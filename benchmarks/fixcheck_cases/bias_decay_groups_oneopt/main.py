# One optimizer whose two param groups are split by name ('bias' in n: no
# weight decay), over a wrapper holding G and D. GAN step reusing `fake`.
# Every parameter of G is in the one optimizer the D step steps: the D
# step's gradient through G is applied, so only retain_graph keeps the numbers.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.g = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.d = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def groups(model, wd):
    decay = [p for n, p in model.named_parameters() if "bias" not in n]
    no_decay = [p for n, p in model.named_parameters() if "bias" in n]
    return [{"params": decay, "weight_decay": wd}, {"params": no_decay, "weight_decay": 0.0}]


torch.manual_seed(0)
pair = Pair()
opt = torch.optim.AdamW(groups(pair, 0.01), lr=1e-3)
for it in range(6):
    real = torch.randn(16, 8)
    fake = pair.g(torch.randn(16, 4))
    opt.zero_grad()
    d_loss = F.softplus(-pair.d(real)).mean() + F.softplus(pair.d(fake)).mean()
    d_loss.backward()
    opt.step()
    opt.zero_grad()
    g_loss = F.softplus(-pair.d(fake)).mean()
    g_loss.backward()
    opt.step()
print(d_loss.item(), g_loss.item())
