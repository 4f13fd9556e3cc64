# expect-before: runs
# The same trainer shape, but the critic step hands back what the generator
# step needs: `critic_step` backwards the critic loss with retain_graph=True
# and returns it with the generator's fake (not detached); the loop prints
# the loss and builds the generator loss from that fake, whose graph the
# critic's backward walked. The retain is needed.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GAN:
    def __init__(self, generator, critic):
        self.generator = generator
        self.critic = critic
        self.c_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
        self.g_opt = torch.optim.Adam(generator.parameters(), lr=1e-3)

    def critic_step(self, real, noise):
        fake = self.generator(noise)
        c_loss = self.critic(fake).mean() - self.critic(real).mean()
        self.c_opt.zero_grad()
        c_loss.backward(retain_graph=True)
        self.c_opt.step()
        return c_loss, fake


def train(gan, steps):
    for step in range(steps):
        c_loss, fake = gan.critic_step(torch.randn(16, 6) + 1.0, torch.randn(16, 4))
        print("{} critic {:.6f}".format(step, c_loss.item()))
        g_loss = -gan.critic(fake).mean()
        gan.g_opt.zero_grad()
        g_loss.backward()
        gan.g_opt.step()
        print(f"  generator {g_loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 6))
    critic = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
    gan = GAN(generator, critic)
    train(gan, ITERS)
    print(f"checksum {sum(p.sum().item() for p in generator.parameters()):.6f}")
