import torch
import torch.nn as nn
import torch.nn.functional as F


class Pipeline:
    def __init__(self):
        self.G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
        # the generator optimizer also tunes the critic (joint fine-tuning)
        self.opt_G = torch.optim.Adam(list(self.G.parameters()) + list(self.D.parameters()), lr=1e-3)

    def run(self, steps):
        for _ in range(steps):
            fake = self.G(torch.randn(8, 4))
            self.opt_G.zero_grad()
            d_loss = F.softplus(self.D(fake)).mean()
            d_loss.backward()
            g_loss = F.softplus(-self.D(fake)).mean() + 0.1 * fake.pow(2).mean()
            g_loss.backward()
            self.opt_G.step()
        return g_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    print(Pipeline().run(6))
