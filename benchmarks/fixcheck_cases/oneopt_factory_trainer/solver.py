import torch
import torch.nn.functional as F

from optim_factory import build_optimizer


class Solver:
    def __init__(self, backbone, head):
        self.backbone = backbone
        self.head = head
        self.optimizer = build_optimizer(backbone, head)

    def step(self, x, y):
        self.optimizer.zero_grad()
        feats = self.backbone(x)
        logits = self.head(feats)
        cls_loss = F.cross_entropy(logits, y)
        cls_loss.backward()
        reg = feats.pow(2).mean() * 0.01 + logits.logsumexp(1).mean() * 0.01
        reg.backward()
        self.optimizer.step()
        return cls_loss.item()
