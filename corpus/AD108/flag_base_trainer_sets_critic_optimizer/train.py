# expect-before: error modified by an inplace operation
# A WGAN trainer whose base class, in another file, sets the networks and
# the optimizers it is handed (`self.critic_optimizer = optimizers["critic"]`).
# The critic's scores on the real and the generated batch are computed once,
# before the critic loop; the loop backwards a loss on them and steps the
# critic each pass, so the second pass (and the generator's loss after the
# loop, built from the same scores) backwards through critic weights saved
# before a step. Reported without a fix: that `self.critic_optimizer` steps
# `self.critic` is inferred from its name and its use here.
import os

import torch
from torch import nn

from base_trainer import BaseTrainer

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class WGANTrainer(BaseTrainer):
    def train_batch(self, noise, real):
        fake = self.generator(noise)
        score_real = self.critic(real)
        score_fake = self.critic(fake)
        critic_total = 0.0
        for _ in range(self.n_critic):
            self.critic_optimizer.zero_grad()
            critic_loss = score_fake.mean() - score_real.mean()
            critic_loss.backward(retain_graph=True)
            self.critic_optimizer.step()
            critic_total += critic_loss.item()
        self.generator_optimizer.zero_grad()
        gen_loss = -score_fake.mean() + 0.1 * fake.pow(2).mean()
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
