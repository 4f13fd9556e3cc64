# expect-before: runs
# DeepFool's step `w = grad_input - grad_input[target]` is built from input gradients
# read without `create_graph`: no graph. Another function of the file binds its own
# `w = nn.Parameter(x.clone())` and trains it; that makes the other function's
# `w` a leaf, not this one. The perturbation kept across iterations keeps nothing. No finding.
import os

import torch
import torch.nn as nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def deepfool_one(model, imgs, target, n_classes, max_iter=ITERS, step_size=0.1):
    imgs_var = imgs
    imgs_var2 = imgs_var.clone()
    r = torch.zeros(imgs_var.size())
    criterion = torch.nn.NLLLoss()
    for m in range(max_iter):
        imgs_var_in = imgs_var2.expand(1, imgs_var2.size(0))
        grad_input = imgs_var_in.repeat(n_classes, 1)
        output = model(imgs_var_in).clone()
        model.zero_grad()
        idx = torch.arange(0, n_classes).long()
        imgs_var_batch = imgs_var_in.detach().repeat(n_classes, 1).requires_grad_()
        output_batch = model(imgs_var_batch)
        loss_batch = criterion(output_batch, idx)
        loss_batch.backward()
        grad_input.index_copy_(0, idx, -imgs_var_batch.grad)
        f = (output - output[0][target].expand_as(output))
        w = grad_input - grad_input[target].expand_as(grad_input)
        w_norm = w.view(n_classes, -1).norm(2, 1)
        ratio = torch.abs(f).div(w_norm).data
        ratio[0][target] = float('inf')
        min_ratio, min_idx = ratio.min(1)
        min_w = w[min_idx[0]]
        min_norm = w_norm[min_idx[0]].data
        ri = min_ratio[0] / min_norm * step_size * min_w
        imgs_var2 = imgs_var2.add(ri)
        r = r.add(ri.data)
    return r




def attack_other(model, x, steps=ITERS):
    w = nn.Parameter(x.clone())
    optimizer = torch.optim.Adam([w], lr=0.01)
    for i in range(steps):
        loss = model(w).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return w.data


net = nn.Sequential(nn.Linear(5, 3), nn.LogSoftmax(dim=1))
r = deepfool_one(net, torch.randn(5), 1, 3)
adv = attack_other(net, torch.randn(2, 5))
print("%.6f %.6f" % (r.sum().item(), adv.sum().item()))
