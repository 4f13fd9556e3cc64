# expect-before: runs
# A generator step split across functions: `recon_step` backwards the
# reconstruction loss with retain_graph=True, and `train_loop` then hands the
# same `fake` to `adv_step`, whose backward walks the generator's graph
# again; both gradients are summed into the generator before its optimizer
# steps. The retain is what lets the second pass run (without it:
# "Trying to backward through the graph a second time"), so it is needed.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def crop(y):
    return y[:, :2]


def recon_step(fake, target):
    loss_r = (crop(fake) - crop(target)).pow(2).mean()
    loss_r.backward(retain_graph=True)
    return loss_r.item()


def adv_step(critic, opt_g, fake):
    loss_a = -torch.log(critic(fake) + 1e-6).mean()
    loss_a.backward()
    opt_g.step()
    return loss_a.item()


def critic_step(critic, opt_c, real, fake):
    opt_c.zero_grad()
    loss_c = -(torch.log(critic(real) + 1e-6) + torch.log(1 - critic(fake.detach()) + 1e-6)).mean()
    loss_c.backward()
    opt_c.step()


def train_loop(gen, critic, opt_g, opt_c, loader):
    for z, real in loader:
        fake = gen(z)
        critic_step(critic, opt_c, real, fake)
        opt_g.zero_grad()
        r = recon_step(fake, real)
        a = adv_step(critic, opt_g, fake)
        print(f"recon {r:.6f} adv {a:.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    gen = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    critic = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid())
    opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3)
    opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3)
    train_loop(gen, critic, opt_g, opt_c, [(torch.randn(5, 4), torch.randn(5, 3)) for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in gen.parameters()):.6f}")
