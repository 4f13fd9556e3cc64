# expect-before: runs
# The shape of flag_optimizers_from_model_method, in the order current
# PyTorch needs: both losses are backwarded before either optimizer steps
# (opt.zero_grad() clears what D_loss left on the features and the
# classifier; D keeps G_loss's gradient as well, as it did on old PyTorch).
import os

import torch
import torch.nn.functional as F

from model import AdaptNet

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = AdaptNet()
opt, opt_D = model.get_optimizer(0.01)
for step in range(ITERS):
    xs, ys, xt = torch.randn(8, 6), torch.randint(0, 3, (8,)), torch.randn(8, 6)
    s_feature, s_score = model(xs)
    t_feature, _ = model(xt)
    s_logit, t_logit = model.forward_D(s_feature), model.forward_D(t_feature)
    C_loss = F.cross_entropy(s_score, ys)
    G_loss = F.softplus(s_logit).mean() + F.softplus(-t_logit).mean()
    D_loss = F.softplus(-s_logit).mean() + F.softplus(t_logit).mean()
    F_loss = C_loss + 0.1 * G_loss
    opt_D.zero_grad()
    D_loss.backward(retain_graph=True)
    opt.zero_grad()
    F_loss.backward()
    opt_D.step()
    opt.step()
    print(f"{step} loss {F_loss.item():.6f} {D_loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
