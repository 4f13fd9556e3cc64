import torch
import torch.nn as nn


class Critic(nn.Module):
    def __init__(self, generator, critic):
        super().__init__()
        self.generator = generator
        self.critic = critic

    def sample(self, z):
        return self.generator(z)

    def critic_loss(self, fake, real):
        return self.critic(fake.detach()).mean() - self.critic(real).mean()

    def generator_loss(self, fake):
        return -self.critic(fake).mean()
