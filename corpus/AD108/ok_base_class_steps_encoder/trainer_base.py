# The base trainer of ok_base_class_steps_encoder/train.py (not a case itself).
import torch
from torch import nn, optim


class AAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.Q = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 4))
        self.P = nn.Linear(4, 6)
        self.D_z = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1))


class AAETraining(object):
    """Builds the networks and one optimizer per part; `update_encoding`
    trains the latent discriminator, then the encoder against it."""

    def __init__(self, lr=0.01):
        self.saae = AAE()
        q_params = list(filter(lambda p: p.requires_grad, self.saae.Q.parameters()))
        self.optimizer_E = optim.Adam(q_params, lr=lr)
        self.optimizer_G = optim.Adam(self.saae.P.parameters(), lr=lr)
        self.optimizer_D_z = optim.Adam([{"params": self.saae.D_z.parameters()}], lr=lr)

    def update_encoding(self, z_sample):
        z_real = torch.randn_like(z_sample)
        d_real = torch.sigmoid(self.saae.D_z(z_real))
        d_fake = torch.sigmoid(self.saae.D_z(z_sample.detach()))
        loss_d_z = -torch.mean(torch.log(d_real + 1e-6) + torch.log(1 - d_fake + 1e-6))
        self.optimizer_D_z.zero_grad()
        loss_d_z.backward()
        self.optimizer_D_z.step()
        d_fake = torch.sigmoid(self.saae.D_z(z_sample))
        loss_e = -torch.mean(torch.log(d_fake + 1e-6))
        loss_e.backward(retain_graph=True)
        self.optimizer_E.step()
        return {"loss_E": loss_e.item(), "loss_D_z": loss_d_z.item()}
