import torch
import torch.nn.functional as F


class MetaLearner:
    def __init__(self, second_order=True, inner_lr=0.1):
        self.w = torch.nn.Parameter(torch.randn(4, 1) * 0.1)
        self.b = torch.nn.Parameter(torch.zeros(1))
        self.meta_opt = torch.optim.Adam([self.w, self.b], lr=1e-2)
        self.second_order = second_order
        self.inner_lr = inner_lr

    def meta_step(self, xs, ys, xq, yq):
        self.meta_opt.zero_grad()
        support_loss = F.mse_loss(xs @ self.w + self.b, ys)
        gw, gb = torch.autograd.grad(support_loss, [self.w, self.b], create_graph=self.second_order)
        fast_w = self.w - self.inner_lr * gw
        fast_b = self.b - self.inner_lr * gb
        query_loss = F.mse_loss(xq @ fast_w + fast_b, yq)
        (query_loss + 0.5 * support_loss).backward()
        self.meta_opt.step()
        return query_loss.item()
