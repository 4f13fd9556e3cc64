"""A generator whose gradients the trainer class switches off outside the
critic step (analysis/frozen.py): the retain AD105 proposes is not offered
as safe, and the message says the order of the calls was not followed."""
import textwrap

import autodetach
from autodetach.findings import SAFE, UNSAFE

TRAINER = """
import torch
import torch.nn as nn

class Trainer:
    def __init__(self):
        self.netG = nn.Linear(4, 6)
        self.netD = nn.Linear(6, 1)
        self.opt_gen = torch.optim.Adam(self.netG.parameters())
        self.opt_dis = torch.optim.Adam(self.netD.parameters())

    def train(self, batches):
        {freeze}
        for real in batches:
            self._train_critic(real)
{extra}
    def _train_critic(self, real):
        {inside}
        fake = self.netG(torch.randn(8, 4))
        loss = self.netD(fake).mean() - self.netD(real).mean()
        loss.backward()
        mixed = torch.lerp(real, fake, 0.5).requires_grad_(True)
        grad = torch.autograd.grad(self.netD(mixed).sum(), mixed, create_graph=True)[0]
        grad.pow(2).mean().backward()
        self.opt_dis.step()
        self.opt_dis.zero_grad()
        self.opt_gen.step()
"""


# A second caller that does not switch the generator off: the switch in
# train() then does not cover every run of _train_critic.
WARMUP = """
    def warmup(self, real):
        self._train_critic(real)
"""


def fixes(freeze="", inside="", extra=WARMUP):
    src = textwrap.dedent(TRAINER.format(freeze=freeze or "pass", inside=inside or "pass", extra=extra))
    return [(f.fix, f.message) for f in autodetach.check_code(src, select=["AD105"])]


def test_generator_switched_off_elsewhere_makes_the_retain_unsafe():
    [(fix, message)] = fixes(freeze="self.netG.requires_grad_(False)")
    assert fix == UNSAFE and "switches off outside this method" in message and "`self.netG` (line 13)" in message


def test_switched_off_before_every_call_is_no_conflict():
    # train() is the only caller and switches the generator off first: `fake` carries
    # no graph into the penalty's pass (frozen.proven_frozen), nothing needs retaining
    assert fixes(freeze="self.netG.requires_grad_(False)", extra="") == []


def test_parameters_loop_counts_as_a_switch():
    [(fix, _)] = fixes(freeze="for p in self.netG.parameters():\n            p.requires_grad = False")
    assert fix == UNSAFE


def test_without_a_switch_the_retain_stays_safe():
    assert [fix for fix, _ in fixes()] == [SAFE]


def test_switched_on_in_the_method_itself_stays_safe():
    assert [fix for fix, _ in fixes(freeze="self.netG.requires_grad_(False)",
                                    inside="self.netG.requires_grad_(True)")] == [SAFE]
