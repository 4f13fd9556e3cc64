# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# The objective comes from a registry indexed at run time, so its code is not read (its
# loss-like name proves nothing):
# that the critic's loss it returns hangs from the generator's graph (it is not
# built on `generated.detach()` here) is inferred. Both losses step one optimizer.
import os

import torch

import objectives

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GanRun:
    def __init__(self, name):
        self.gen = torch.nn.Sequential(torch.nn.Linear(4, 12), torch.nn.ReLU(), torch.nn.Linear(12, 3))
        self.critic = torch.nn.Sequential(torch.nn.Linear(3, 12), torch.nn.ReLU(), torch.nn.Linear(12, 1))
        self.opt = torch.optim.SGD(list(self.gen.parameters()) + list(self.critic.parameters()), lr=0.01)
        self.gan_criterion = objectives.REGISTRY[name]()

    def fit(self, iters):
        for it in range(iters):
            generated = self.gen(torch.randn(8, 4))
            critic_loss, gen_loss = self.gan_criterion(self.critic, generated, torch.randn(8, 3))
            self.opt.zero_grad()
            gen_loss.backward(retain_graph=True)
            critic_loss.backward()
            self.opt.step()
        return critic_loss.item(), gen_loss.item()


print("%.6f %.6f" % GanRun(os.environ.get("OBJECTIVE", "hinge")).fit(ITERS))
