"""Session 38, prec71: wrong and unproven safe AD105 fixes found by audit51 (issue 8).

1. A loss object whose class is chosen at run time (`getattr(gan_losses, kind)()`,
   `REGISTRY[name]()`) returns `(d_loss, g_loss)`; the D loss may be built on `fake.detach()`.
   Its name (`self.adv_loss`) made the walk take each result to hang from the graph of every
   input, and the fix was safe: that is inference (analysis/unread_links.py), so unsafe.
2. The same for a method of an object whose class is out of sight (`self.algo.critic_loss(...)`):
   a target built under no_grad inside shares no graph.
3. A helper in another file that backwards a loss built on `logits.detach()` frees nothing of
   the caller's `logits` (Summary.live_backward_params): no finding, as a free function and as
   a method of another file's class.
4. The message named the freed value `the loss` where it has no variable: it names the call.
"""
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _ad105(path):
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD105"]


LOSSES = '''
import torch.nn.functional as F


class lsq:
    def __call__(self, critic, fake, real):
        d = F.mse_loss(critic(fake.detach()), real.new_zeros(real.shape[0], 1)) + critic(real).mean()
        return d, F.mse_loss(critic(fake), fake.new_ones(fake.shape[0], 1))
'''

TRAINER = '''
import torch
import gan_objectives


class Trainer:
    def __init__(self, kind="lsq"):
        self.G = torch.nn.Linear(4, 3)
        self.D = torch.nn.Linear(3, 1)
        self.opt_g = torch.optim.Adam(self.G.parameters())
        self.opt_d = torch.optim.Adam(self.D.parameters())
        self.gan_loss = getattr(gan_objectives, kind)()

    def train(self, loader):
        for z, real in loader:
            fake = self.G(z)
            d_loss, g_loss = self.gan_loss(self.D, fake, real)
            self.opt_g.zero_grad()
            self.opt_d.zero_grad()
            (g_loss + (fake - real).abs().mean()).backward()
            d_loss.backward()
            self.opt_g.step()
            self.opt_d.step()
'''


def test_loss_object_chosen_at_run_time_is_inferred(tmp_path):
    (tmp_path / "gan_objectives.py").write_text(LOSSES)
    path = tmp_path / "train.py"
    path.write_text(TRAINER)
    found = _ad105(path)
    assert len(found) == 1
    assert found[0].fix == "unsafe"
    assert "inferred" in found[0].message and "`self.gan_loss(...)`" in found[0].message
    assert "the loss`" not in found[0].message  # issue 4: the freed value is named


AGENT = '''
import torch
import torch.nn.functional as F
from registry import BUILDERS


def update(algo, policy, q_a, q_b, opt_a, opt_b, batch):
    (pred_a, pred_b), target = algo.td_targets(policy, (q_a, q_b), batch)
    loss_a = F.smooth_l1_loss(pred_a, target)
    loss_b = F.smooth_l1_loss(pred_b, target)
    opt_a.zero_grad()
    opt_b.zero_grad()
    loss_a.backward()
    loss_b.backward()
    opt_a.step()
    opt_b.step()


policy = torch.nn.Linear(3, 2)
q_a, q_b = torch.nn.Linear(5, 1), torch.nn.Linear(5, 1)
opt_a, opt_b = torch.optim.SGD(q_a.parameters(), lr=0.1), torch.optim.SGD(q_b.parameters(), lr=0.1)
algo = BUILDERS["td3"]()
for batch in range(3):
    update(algo, policy, q_a, q_b, opt_a, opt_b, batch)
'''


def test_unread_method_results_are_inferred(tmp_path):
    path = tmp_path / "agent.py"
    path.write_text(AGENT)
    found = _ad105(path)
    assert len(found) == 1 and found[0].fix == "unsafe"
    assert "inferred" in found[0].message and "`algo.td_targets(...)`" in found[0].message


HELPER = '''
import torch
import torch.nn.functional as F


def adversarial_penalty(model, inputs, outputs, eps=1e-2):
    target = outputs.detach()
    delta = (eps * torch.randn_like(inputs)).requires_grad_()
    F.mse_loss(model(inputs + delta), target).backward()
    step = delta.grad.detach()
    model.zero_grad()
    return F.mse_loss(model(inputs + step), target)


class Smoother:
    def penalty(self, model, inputs, outputs):
        probe = (1e-2 * torch.randn_like(inputs)).requires_grad_()
        dist = F.mse_loss(model(inputs + probe), outputs.detach())
        dist.backward()
        model.zero_grad()
        return F.mse_loss(model(inputs + probe.grad.detach()), outputs.detach())


class Careless:
    def penalty(self, model, inputs, outputs):
        outputs.pow(2).mean().backward()
        return outputs.mean()
'''

SCRIPT = '''
import torch
from helpers import adversarial_penalty

net = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for it in range(3):
    x = torch.randn(8, 4)
    out = net(x)
    reg = adversarial_penalty(net, x, out)
    loss = out.pow(2).mean() + reg
    opt.zero_grad()
    loss.backward()
    opt.step()
'''

METHOD = '''
import torch
from helpers import {cls}


class Trainer:
    def __init__(self):
        self.net = torch.nn.Linear(4, 2)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.reg = {cls}()

    def step(self, x):
        out = self.net(x)
        extra = self.reg.penalty(self.net, x, out)
        loss = out.pow(2).mean() + extra
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
'''


def test_helper_backward_on_detached_argument_frees_nothing(tmp_path):
    (tmp_path / "helpers.py").write_text(HELPER)
    path = tmp_path / "train.py"
    path.write_text(SCRIPT)
    assert _ad105(path) == []


def test_helper_method_backward_on_detached_argument_frees_nothing(tmp_path):
    (tmp_path / "helpers.py").write_text(HELPER)
    path = tmp_path / "trainer.py"
    path.write_text(METHOD.format(cls="Smoother"))
    assert _ad105(path) == []


def test_helper_method_backward_on_live_argument_still_found(tmp_path):
    (tmp_path / "helpers.py").write_text(HELPER)
    path = tmp_path / "trainer.py"
    path.write_text(METHOD.format(cls="Careless"))
    found = _ad105(path)
    assert len(found) == 1 and found[0].fix == "unsafe"
