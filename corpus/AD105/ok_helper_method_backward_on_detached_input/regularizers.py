import torch
import torch.nn.functional as F


class VirtualAdversarial:
    def __init__(self, eps=1e-2):
        self.eps = eps

    def penalty(self, model, inputs, predictions):
        target = F.softmax(predictions, 1).detach()
        noise = (self.eps * torch.randn_like(inputs)).requires_grad_()
        dist = F.kl_div(F.log_softmax(model(inputs + noise), 1), target, reduction="batchmean")
        dist.backward()
        step = noise.grad.detach()
        model.zero_grad()
        return F.kl_div(F.log_softmax(model(inputs + step), 1), target, reduction="batchmean")
