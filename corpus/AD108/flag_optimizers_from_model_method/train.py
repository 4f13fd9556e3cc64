# expect-before: error modified by an inplace operation
# Domain adaptation whose optimizers come from a method of the model class
# (`opt, opt_D = model.get_optimizer(lr)`, in model.py): nothing here says
# they are optimizers or what they step. The feature loss F_loss goes through
# the discriminator (`model.forward_D`), whose optimizer steps before
# F_loss's backward, which then walks D's weights saved before that step.
# Reported without a fix: what `opt_D` steps is inferred from the backward
# whose gradients it applies.
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
    opt_D.step()
    opt.zero_grad()
    F_loss.backward()
    opt.step()
    print(f"{step} loss {F_loss.item():.6f} {D_loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
