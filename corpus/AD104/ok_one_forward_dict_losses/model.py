import torch
from torch import nn
from torch.nn import functional as F


class StyleModel(nn.Module):
    """The generator step's losses come back in one dict: the auto-encoding loss
    and the total, which adds a classifier term to that same loss."""

    def __init__(self, config):
        super().__init__()
        # the layers come from a configuration, as toolkits build them
        self.encoder = getattr(nn, config["encoder"])(6, 8)
        self.decoder = getattr(nn, config["decoder"])(8, 6)
        self.classifier = getattr(nn, config["classifier"])(6, 2)

    @property
    def d_vars(self):
        return list(self.classifier.parameters())

    @property
    def g_vars(self):
        return list(self.encoder.parameters()) + list(self.decoder.parameters())

    def forward_D(self, x, labels):
        loss_d = F.cross_entropy(self.classifier(x), labels)
        return {"loss_d": loss_d}

    def forward_G(self, x, labels, lambda_g, mode):
        recon = self.decoder(torch.tanh(self.encoder(x)))
        loss_g_ae = F.mse_loss(recon, x)
        loss_g_class = F.cross_entropy(self.classifier(recon), 1 - labels)
        ret = {"loss_g": loss_g_ae + lambda_g * loss_g_class, "loss_g_ae": loss_g_ae, "loss_g_class": loss_g_class}
        if mode == "eval":
            ret.update({"outputs": recon})
        return ret

    def forward(self, x, labels, lambda_g, mode, component=None):
        if mode == "train":
            if component == "D":
                return self.forward_D(x, labels)
            elif component == "G":
                return self.forward_G(x, labels, lambda_g, mode)
        ret_d = self.forward_D(x, labels)
        ret_g = self.forward_G(x, labels, lambda_g, mode)
        return {"loss_d": ret_d["loss_d"], "loss_g": ret_g["loss_g"]}
