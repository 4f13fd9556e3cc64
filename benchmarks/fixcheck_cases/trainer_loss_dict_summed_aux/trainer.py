import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, opt):
        self.model = model
        self.opt = opt

    def losses(self, x, y):
        z = self.model.enc(x)
        return {"rec": F.mse_loss(self.model.dec(z), x), "cls": F.cross_entropy(self.model.cls(z), y),
                "reg": 1e-3 * z.pow(2).mean()}

    def step(self, x, y):
        losses = self.losses(x, y)
        self.opt.zero_grad()
        total = sum(losses.values())
        total.backward()
        # extra weight on the classifier, backwarded on its own
        (0.5 * losses["cls"]).backward()
        self.opt.step()
        return {k: v.item() for k, v in losses.items()}
