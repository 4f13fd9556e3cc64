"""AD108 recall (issue 8): backwards after a discriminator step.

1. Networks registered by `self.add_module("dis", dis)` / `setattr(self, ...)`
   / `self.register_module(...)` are `self.dis`, so an optimizer over the
   local `dis` steps `self.dis` (analysis/names.py).
2. `model.backward(gen_loss, dis_loss)` of an object whose class (of this
   file) defines `backward` runs that method, not a tensor's backward, also
   from a function that reads a module-level object; the losses it is handed
   come from another method of the object (`model.process(...)`), walked
   through the modules it runs (analysis/flow.py).
3. A function that trains the discriminator inside (backward, step) and
   returns the generator loss built after the step from a discriminator
   output computed before it (a relativistic GAN's `d_real`): the caller's
   backward walks weights the step changed; reported where the stale output
   is read, without a fix, the caller's backward inferred
   (analysis/returned_stale.py).
"""
import os
import textwrap

from autodetach.engine import Options, check_source
from autodetach.findings import NONE
from autodetach.registry import all_rules


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    os.utime(path, ns=(1, 1))


def _ad108(path):
    with open(path) as fh:
        text = fh.read()
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD108"]


TRAINER = """
import torch
from torch import nn


class Dehazer(nn.Module):
    def __init__(self):
        super().__init__()
        body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4))
        judge = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        {register}
        self.body_optim = torch.optim.Adam(body.parameters(), lr=1e-3)
        self.judge_optim = torch.optim.Adam(params=judge.parameters(), lr=1e-3)

    def run(self, hazy, clear):
        out = self.body(hazy)
        judge_loss = self.judge(clear).mean() - self.judge(out.detach()).mean()
        body_loss = {body_loss}
        return body_loss, judge_loss

    def backward(self, body_loss, judge_loss):
{backward}

{driver}
"""

STALE_ORDER = """\
        judge_loss.backward()
        self.judge_optim.step()
        body_loss.backward()
        self.body_optim.step()"""

FUNCTION_DRIVER = """
def fit(model, n):
    for i in range(n):
        a, b = model.run(torch.randn(2, 4), torch.randn(2, 4))
        model.backward(a, b)


net = Dehazer()
fit(net, 3)
"""

GLOBAL_DRIVER = """
net = Dehazer()


def fit(n):
    for i in range(n):
        a, b = net.run(torch.randn(2, 4), torch.randn(2, 4))
        net.backward(a, b)


fit(3)
"""

SCRIPT_DRIVER = """
net = Dehazer()
for i in range(3):
    a, b = net.run(torch.randn(2, 4), torch.randn(2, 4))
    net.backward(a, b)
"""


def _trainer(tmp_path, register='self.add_module("body", body)\n        self.add_module("judge", judge)',
             body_loss="self.judge(out).mean() + (out - clear).abs().mean()", backward=STALE_ORDER,
             driver=GLOBAL_DRIVER):
    _write(tmp_path / "dehaze.py", TRAINER.format(register=register, body_loss=body_loss, backward=backward,
                                                  driver=driver))
    return _ad108(tmp_path / "dehaze.py")


def test_add_module_losses_handed_to_own_backward_reported(tmp_path):
    found = _trainer(tmp_path)
    assert len(found) == 1, found
    assert found[0].line == 25 and "body_loss.backward()" in found[0].message
    assert "self.judge_optim.step()" in found[0].message
    assert found[0].fix == NONE


def test_setattr_and_register_module_from_a_function_taking_the_model(tmp_path):
    found = _trainer(tmp_path, register='setattr(self, "body", body)\n        self.register_module("judge", judge)',
                     driver=FUNCTION_DRIVER)
    assert [f.line for f in found] == [25], found


def test_script_driver_reported(tmp_path):
    assert [f.line for f in _trainer(tmp_path, driver=SCRIPT_DRIVER)] == [25]


def test_steps_after_both_backwards_not_reported(tmp_path):
    backward = STALE_ORDER.replace("        self.judge_optim.step()\n        body_loss.backward()\n",
                                   "        body_loss.backward()\n        self.judge_optim.step()\n")
    assert _trainer(tmp_path, backward=backward) == []


def test_body_loss_not_through_the_judge_not_reported(tmp_path):
    assert _trainer(tmp_path, body_loss="(out - clear).abs().mean()") == []


def test_registered_under_another_name_not_taken_for_the_judge(tmp_path):
    # the optimizer steps `judge`, registered as `self.critic`; the body loss runs `self.judge`,
    # which is not registered from it: nothing says the step touches it
    found = _trainer(tmp_path, register='self.add_module("body", body)\n        self.add_module("critic", judge)\n'
                     '        self.judge = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))')
    assert found == []


RELATIVISTIC = """
import torch
import torch.nn.functional as F
from torch import nn


def relativistic_round(generator, critic, critic_opt, real, z):
    fake = generator(z)
    critic_opt.zero_grad()
    d_real = critic(real)
    d_fake = critic(fake.detach())
    loss_d = F.softplus(d_fake - d_real).mean()
    loss_d.backward(retain_graph=True)
    critic_opt.step()
{after}
"""

STALE_AFTER = """\
    g_fake = critic(fake)
    loss_g = F.softplus(d_real - g_fake).mean()
    return loss_g"""


def _relativistic(tmp_path, after=STALE_AFTER, caller=""):
    _write(tmp_path / "rgan.py", RELATIVISTIC.format(after=after) + textwrap.dedent(caller))
    return _ad108(tmp_path / "rgan.py")


def test_free_function_returning_loss_on_stale_output_reported(tmp_path):
    found = _relativistic(tmp_path)
    assert [f.line for f in found] == [16], found
    msg = found[0].message
    assert "`d_real`" in msg and "critic_opt.step()" in msg and "inferred: the caller backwards" in msg
    assert "Not fixed" in msg and found[0].fix == NONE


def test_returned_directly_reported_at_the_return(tmp_path):
    found = _relativistic(tmp_path, after="    return F.softplus(d_real - critic(fake)).mean()")
    assert [f.line for f in found] == [15] and "hands back a value built from `d_real`" in found[0].message


def test_recomputed_after_the_step_not_reported(tmp_path):
    assert _relativistic(tmp_path, after="    d_real = critic(real)\n" + STALE_AFTER) == []


def test_detached_stale_output_not_reported(tmp_path):
    assert _relativistic(tmp_path, after=STALE_AFTER.replace("d_real - g_fake", "d_real.detach() - g_fake")) == []


def test_outputs_returned_for_logging_not_reported(tmp_path):
    # no forward after the step: what comes back is the round's own outputs, not a loss for the next update
    assert _relativistic(tmp_path, after="    return d_real.mean(), d_fake.mean()") == []


def test_step_of_another_network_not_reported(tmp_path):
    # the step is the generator's: the critic's output kept from before it saved no stepped weight
    _write(tmp_path / "other.py", """
        import torch
        import torch.nn.functional as F
        from torch import nn


        def round_(generator, critic, gen_opt, real, z):
            d_real = critic(real)
            gen_opt.zero_grad()
            fake = generator(z)
            F.softplus(-critic(fake)).mean().backward()
            gen_opt.step()
            return F.softplus(d_real - critic(generator(z).detach())).mean()
    """)
    assert _ad108(tmp_path / "other.py") == []


def test_caller_in_sight_reported_once_at_its_backward(tmp_path):
    found = _relativistic(tmp_path, caller="""

        G, D = nn.Linear(4, 4), nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
        for i in range(3):
            loss = relativistic_round(G, D, opt_d, torch.randn(2, 4), torch.randn(2, 4))
            loss.backward()
    """)
    assert [f.line for f in found] == [24], found


def test_one_optimizer_over_both_left_alone(tmp_path):
    # one optimizer over G and D after zero_grad: the D step on `fake.detach()` leaves G's
    # parameters (no gradient) alone, so `fake` is not stale (torch >= 2.0)
    _write(tmp_path / "both.py", """
        import torch
        import torch.nn.functional as F
        from torch import nn


        def gan_round(gen, disc, opt, real, z):
            opt.zero_grad()
            fake = gen(z)
            d_loss = F.softplus(disc(fake.detach())).mean() + F.softplus(-disc(real)).mean()
            d_loss.backward()
            opt.step()
            return F.softplus(-disc(fake)).mean()


        G, D = nn.Linear(4, 4), nn.Linear(4, 1)
        both = torch.optim.Adam(list(G.parameters()) + list(D.parameters()), lr=0.01)
    """)
    assert _ad108(tmp_path / "both.py") == []


def test_trainer_method_reported(tmp_path):
    _write(tmp_path / "trainer.py", """
        import torch
        import torch.nn.functional as F
        from torch import nn


        class Trainer:
            def __init__(self):
                self.gen = nn.Linear(4, 4)
                self.disc = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
                self.opt_d = torch.optim.Adam(self.disc.parameters(), lr=0.01)

            def generator_loss(self, real, z):
                fake = self.gen(z)
                real_score = self.disc(real)
                d_loss = F.softplus(self.disc(fake.detach()) - real_score).mean()
                self.opt_d.zero_grad()
                d_loss.backward(retain_graph=True)
                self.opt_d.step()
                fake_score = self.disc(fake)
                return F.softplus(real_score - fake_score).mean()
    """)
    found = _ad108(tmp_path / "trainer.py")
    assert [f.line for f in found] == [21], found


def test_loss_module_optimizer_from_sibling_helper_inferred(tmp_path):
    # the optimizer comes from a helper of another file: what it steps is read from the backward it applies
    _write(tmp_path / "optim_utils.py", """
        import torch


        def build_optimizer(args, target):
            kwargs = {"lr": args.lr}
            return getattr(torch.optim, args.optimizer)(target.parameters(), **kwargs)
    """)
    _write(tmp_path / "adversarial.py", """
        import torch
        import torch.nn.functional as F
        from torch import nn

        from optim_utils import build_optimizer


        class Adversarial(nn.Module):
            def __init__(self, args):
                super().__init__()
                self.dis = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
                self.optimizer = build_optimizer(args, self.dis)

            def forward(self, fake, real):
                for _ in range(2):
                    self.optimizer.zero_grad()
                    d_fake = self.dis(fake.detach())
                    d_real = self.dis(real)
                    loss_d = F.softplus(d_fake - d_real).mean()
                    loss_d.backward(retain_graph=True)
                    self.optimizer.step()
                d_fake_bp = self.dis(fake)
                better_fake = d_fake_bp - d_real.mean(dim=0, keepdim=True)
                return F.softplus(-better_fake).mean()
    """)
    found = _ad108(tmp_path / "adversarial.py")
    assert [f.line for f in found] == [24], found
    assert "`d_real`" in found[0].message and found[0].fix == NONE


def test_metric_of_the_outputs_returned_after_the_step_not_reported(tmp_path):
    # a training function that returns a metric of its pre-step predictions: the call after the step
    # (`evaluator`, taken for a module by its use) is no new forward of the stepped model
    _write(tmp_path / "node_train.py", """
        import torch.nn.functional as F


        def train(model, feat, labels, idx, optimizer, evaluator):
            optimizer.zero_grad()
            pred = model(feat)
            loss = F.cross_entropy(pred[idx], labels[idx])
            loss.backward()
            optimizer.step()
            return evaluator(pred[idx], labels[idx]), loss.item()
    """)
    assert _ad108(tmp_path / "node_train.py") == []
