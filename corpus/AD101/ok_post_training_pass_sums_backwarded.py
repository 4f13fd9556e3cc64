# expect-before: runs
# A mixture-model estimator trains its encoder with a step method, then makes one more pass over
# the training data with gradients on, folding each batch's soft assignments and weighted codes
# into running sums; the pass is a calibration step: a loss on the centres built from the sums is
# backwarded and stepped after it. The sums' graphs are what that backward needs: no finding.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class MixtureEstimator:
    def __init__(self, features, codes=3, components=2):
        self.encoder = nn.Sequential(nn.Linear(features, 8), nn.Tanh(), nn.Linear(8, codes))
        self.assign = nn.Sequential(nn.Linear(codes, components), nn.Softmax(dim=1))
        params = list(self.encoder.parameters()) + list(self.assign.parameters())
        self.optimizer = torch.optim.Adam(params, lr=0.01)

    def _step(self, x):
        z = self.encoder(x)
        gamma = self.assign(z)
        loss = z.pow(2).mean() - (gamma * gamma.clamp_min(1e-6).log()).sum(1).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, batches):
        for epoch in range(2):
            for x in batches:
                print(f"epoch {epoch} loss {self._step(x):.6f}")
        self.encoder.eval()
        weight_sum, center_sum = 0, 0
        for x in batches:
            z = self.encoder(x)
            gamma = self.assign(z)
            batch_weight = gamma.sum(0)
            weight_sum += batch_weight
            center_sum += gamma.t() @ z
        centers = center_sum / weight_sum.unsqueeze(1)
        spread = -torch.cdist(centers, centers).mean()
        self.optimizer.zero_grad()
        spread.backward()
        self.optimizer.step()
        print(f"centers {centers.abs().sum().item():.6f} spread {spread.item():.6f} iters {ITERS}")


data = [torch.randn(16, 5) for _ in range(ITERS)]
MixtureEstimator(5).fit(data)
