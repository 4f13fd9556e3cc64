# expect-before: runs
# autodetach-test: unsafe
# A WGAN-GP trainer class: `train_critic` builds a new graph at every call
# (a fresh fake, both critic outputs, the gradient penalty) and backwards it
# with retain_graph=True, then returns the loss and the Wasserstein estimate;
# the generator step builds its own fake and critic output. The training
# loop unpacks what the critic step returns and only prints it, so no
# backward reuses the retained graph: it only keeps the generator's and the
# critic's activations (and the double-backward graph) alive until the next
# call. That no caller backwards the result again is inferred from the
# project's calls (code out of sight could call `train_critic`): unsafe.
import os

import torch
from torch import autograd, nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class WGANGP:
    def __init__(self, generator, critic, lamda=10.0):
        self.generator = generator
        self.critic = critic
        self.lamda = lamda
        self.c_opt = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.0, 0.9))
        self.g_opt = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.0, 0.9))

    def gradient_penalty(self, real, fake):
        alpha = torch.rand(real.size(0), 1)
        mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        out = self.critic(mixed)
        grad = autograd.grad(out, mixed, torch.ones_like(out), create_graph=True, retain_graph=True)[0]
        return ((grad.norm(2, dim=1) - 1) ** 2).mean()

    def train_critic(self, real, noise):
        fake = self.generator(noise)
        w_dist = self.critic(real).mean() - self.critic(fake).mean()
        c_loss = -w_dist + self.lamda * self.gradient_penalty(real, fake)
        self.critic.zero_grad()
        c_loss.backward()
        self.c_opt.step()
        return c_loss, w_dist

    def train_generator(self, noise):
        g_loss = -self.critic(self.generator(noise)).mean()
        self.generator.zero_grad()
        g_loss.backward()
        self.g_opt.step()
        return g_loss


def train(gan, steps):
    for step in range(steps):
        for _ in range(3):
            c_loss, w_dist = gan.train_critic(torch.randn(16, 6) + 1.0, torch.randn(16, 4))
        g_loss = gan.train_generator(torch.randn(16, 4))
        print("{} critic {:.6f} generator {:.6f}".format(step, c_loss.item(), g_loss.item()))
        print(f"  w_dist {w_dist:.6f}", "loss %.6f" % c_loss)


if __name__ == "__main__":
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 6))
    critic = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
    gan = WGANGP(generator, critic)
    train(gan, ITERS)
    print(f"checksum {sum(p.sum().item() for p in generator.parameters()):.6f}")
