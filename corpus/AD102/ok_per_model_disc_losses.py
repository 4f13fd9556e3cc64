# expect-before: runs
# One discriminator per skeleton topology (a multi-domain GAN trainer): the
# discriminator step keeps each topology's loss with its graph on the trainer
# (`self.loss_Ds`, `self.loss_D`) for logging, but both are set again at the
# start of every step and the loop goes over the topologies, whose
# discriminator a helper trains: nothing piles up across steps.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Branch:
    """Not a module: a generator and a discriminator for one topology."""

    def __init__(self, dim):
        self.generator = nn.Linear(dim, dim)
        self.discriminator = nn.Sequential(nn.Linear(dim, 8), nn.ReLU(), nn.Linear(8, 1))

    def d_parameters(self):
        return list(self.discriminator.parameters())


class MultiDomainGAN:
    def __init__(self, n_topology, dim):
        self.n_topology = n_topology
        self.models = []
        d_params = []
        for i in range(n_topology):
            model = Branch(dim)
            self.models.append(model)
            d_params += model.d_parameters()
        self.optimizer_d = torch.optim.Adam(d_params, lr=0.01)
        self.criterion = nn.BCEWithLogitsLoss()

    def backward_d_basic(self, net_d, real, fake):
        pred_real = net_d(real)
        pred_fake = net_d(fake.detach())
        loss_d = (self.criterion(pred_real, torch.ones_like(pred_real)) +
                  self.criterion(pred_fake, torch.zeros_like(pred_fake))) * 0.5
        loss_d.backward()
        return loss_d

    def backward_d(self, reals):
        self.loss_Ds = []
        self.loss_D = 0
        for i in range(self.n_topology):
            fake = self.models[i].generator(torch.randn_like(reals[i]))
            self.loss_Ds.append(self.backward_d_basic(self.models[i].discriminator, reals[i], fake))
            self.loss_D += self.loss_Ds[-1]

    def optimize_parameters(self, reals):
        self.optimizer_d.zero_grad()
        self.backward_d(reals)
        self.optimizer_d.step()


def main():
    torch.manual_seed(0)
    gan = MultiDomainGAN(2, 6)
    for it in range(ITERS):
        gan.optimize_parameters([torch.randn(8, 6) for _ in range(2)])
        print(f"{it} d {gan.loss_D.item():.6f}")
    print(f"checksum {sum(p.sum().item() for m in gan.models for p in m.d_parameters()):.6f}")


if __name__ == "__main__":
    main()
