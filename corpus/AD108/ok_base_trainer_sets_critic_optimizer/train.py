# expect-before: runs
# The shape of flag_base_trainer_sets_critic_optimizer done right: each
# critic pass scores the real batch and the detached generated batch again,
# after the previous pass's step, and the generator's loss runs the critic
# once more on the generated batch after the last critic step.
import os

import torch
from torch import nn

from base_trainer import BaseTrainer

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class WGANTrainer(BaseTrainer):
    def train_batch(self, noise, real):
        fake = self.generator(noise)
        critic_total = 0.0
        for _ in range(self.n_critic):
            self.critic_optimizer.zero_grad()
            critic_loss = self.critic(fake.detach()).mean() - self.critic(real).mean()
            critic_loss.backward()
            self.critic_optimizer.step()
            critic_total += critic_loss.item()
        self.generator_optimizer.zero_grad()
        gen_loss = -self.critic(fake).mean() + 0.1 * fake.pow(2).mean()
        gen_loss.backward()
        self.generator_optimizer.step()
        return critic_total / self.n_critic, gen_loss.item()


gen = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 4))
critic = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 1))
opts = {"generator": torch.optim.SGD(gen.parameters(), lr=0.01),
        "critic": torch.optim.SGD(critic.parameters(), lr=0.01)}
trainer = WGANTrainer(gen, critic, opts, n_critic=2)
trainer.train([(torch.randn(5, 3), torch.randn(5, 4)) for _ in range(ITERS)])
print(f"checksum {sum(p.sum().item() for p in gen.parameters()):.6f} after {ITERS}")
