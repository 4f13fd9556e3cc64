"""A helper of this file that runs a module on a cut argument (`disc_net(fake.detach())`,
targets from `fake.new_full(...)`): its result holds none of that argument's graph
(flow._local_function with the file's own summary). Next to the helper that does not cut."""
import textwrap

import autodetach

SRC = """
import torch
disc_net = torch.nn.Linear(4, 1)
gen_net = torch.nn.Linear(2, 4)
disc_opt = torch.optim.Adam(disc_net.parameters())
gen_opt = torch.optim.Adam(gen_net.parameters())

def discriminator_loss(fake, real):
    target = {target}
    return ((disc_net({fake}) - target) ** 2).mean() + disc_net(real).mean()

for i in range(3):
    real = torch.randn(5, 4)
    gen_opt.zero_grad()
    fake = gen_net(torch.randn(5, 2))
    loss = disc_net(fake).mean()
    loss.backward()
    gen_opt.step()
    for _ in range(2):
        disc_opt.zero_grad()
        d_loss = discriminator_loss(fake, real)
        d_loss.backward()
        disc_opt.step()
"""


def codes(src):
    return sorted({f.code for f in autodetach.check_code(textwrap.dedent(src), select=["AD1"])})


def test_helper_that_detaches_its_argument_is_not_reported():
    assert codes(SRC.format(fake="fake.detach()", target="torch.zeros(5, 1)")) == []


def test_helper_whose_targets_are_new_tensors_of_the_argument_is_not_reported():
    assert codes(SRC.format(fake="fake.detach()", target="fake.new_full((5, 1), 0.0)")) == []


def test_helper_that_runs_the_module_on_the_live_argument_is_reported():
    assert codes(SRC.format(fake="fake", target="torch.zeros(5, 1)")) != []
    assert codes(SRC.format(fake="fake", target="fake.new_full((5, 1), 0.0)")) != []
