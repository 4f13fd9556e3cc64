import torch
import torch.nn as nn
import torch.nn.functional as F


class ContextAgent(nn.Module):
    """Infers a task posterior from a context batch and keeps it on itself."""

    def __init__(self, context_dim=5, latent=2):
        super().__init__()
        self.latent = latent
        self.encoder = nn.Sequential(nn.Linear(context_dim, 16), nn.ReLU(), nn.Linear(16, 2 * latent))
        self.means = torch.zeros(1, latent)
        self.variances = torch.ones(1, latent)

    def infer(self, context):
        params = self.encoder(context).mean(0, keepdim=True)
        self.means = params[:, :self.latent]
        self.variances = F.softplus(params[:, self.latent:]) + 1e-3

    def forward(self, obs, context):
        self.infer(context)
        z = self.means + self.variances.sqrt() * torch.randn_like(self.means)
        return z.expand(obs.size(0), -1)

    def kl_divergence(self):
        posterior = torch.distributions.Normal(self.means, self.variances.sqrt())
        prior = torch.distributions.Normal(torch.zeros_like(self.means), torch.ones_like(self.means))
        return torch.distributions.kl_divergence(posterior, prior).sum()
