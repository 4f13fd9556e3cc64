"""What an optimizer step can break, and what a module name stands for:
a learned scalar read through exp() (analysis/saved.py) and a loss object of a
plain project class built from the critic (analysis/project_modules.py)."""
import textwrap

from autodetach.analysis.project_modules import is_plain_class
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

SCALAR = """
import torch
from torch import nn


class LogScale(nn.Module):
    def __init__(self, value):
        super().__init__()
        self.value = nn.Parameter(torch.tensor(float(value)))

    def forward(self):
        return self.value
"""

AGENT = """
import torch
from torch import nn
{scalar_import}

policy = nn.Linear(4, 2)
log_alpha = LogScale(0.0)
policy_opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
alpha_opt = torch.optim.Adam(log_alpha.parameters(), lr=1e-3)
for _ in range(3):
    log_pi = policy(torch.randn(8, 4)).sum(-1)
    alpha_loss = -(log_alpha() * (log_pi + 1.0).detach()).mean()
    alpha = {alpha}
    policy_loss = (alpha * log_pi).mean()
    alpha_opt.zero_grad()
    alpha_loss.backward()
    alpha_opt.step()
    policy_opt.zero_grad()
    policy_loss.backward()
    policy_opt.step()
"""


def _ad108(tmp_path, alpha, here=True):
    if here is True:
        text = SCALAR + AGENT.format(scalar_import="", alpha=alpha)
    elif here is False:
        (tmp_path / "nets.py").write_text(textwrap.dedent(SCALAR))
        text = AGENT.format(scalar_import="from nets import LogScale", alpha=alpha)
    else:
        # a package's relative import, and a None in another arm (`else: self.log_alpha = None`)
        tmp_path = tmp_path / "sac"
        tmp_path.mkdir(exist_ok=True)
        (tmp_path / "__init__.py").write_text("")
        (tmp_path / "nets.py").write_text(textwrap.dedent(SCALAR))
        text = AGENT.format(scalar_import="from .nets import LogScale\nlog_alpha = None", alpha=alpha)
    path = tmp_path / "agent.py"
    path.write_text(textwrap.dedent(text))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD108"]


def test_scalar_read_through_exp_is_not_stale(tmp_path):
    # exp() saves its output, not the parameter the step changes
    for here in (True, False, None):
        assert _ad108(tmp_path, "log_alpha().exp() * 0.5", here) == []
        assert _ad108(tmp_path, "torch.exp(log_alpha())", here) == []
        assert _ad108(tmp_path, "torch.clamp(log_alpha().exp(), max=10.0)", here) == []


def test_scalar_read_raw_is_stale(tmp_path):
    # a product with the parameter itself (or log, which saves its input) keeps it
    for here in (True, False, None):
        assert len(_ad108(tmp_path, "log_alpha().exp() * log_alpha()", here)) == 1
        assert len(_ad108(tmp_path, "log_alpha().log()", here)) == 1


LOSSES = """
class CriticLoss:
    def __init__(self, critic):
        self.critic = critic


class WLoss(CriticLoss):
    def dis_loss(self, real, fake):
        return self.critic(fake).mean() - self.critic(real).mean()


class ModLoss({base}):
    def __init__(self, critic):
        super().__init__()
        self.critic = critic

    def dis_loss(self, real, fake):
        return self.critic(fake).mean() - self.critic(real).mean()
"""

GAN = """
import torch
from torch import nn


class GAN:
    def __init__(self, loss="w"):
        self.gen = nn.Linear(8, 4)
        self.dis = nn.Linear(4, 1)
        self.dis_optim = torch.optim.Adam(self.dis.parameters(), lr=1e-3)
        self.loss = self.__setup_loss(loss)

    def __setup_loss(self, loss):
        import gl.losses as losses

        if isinstance(loss, str):
            loss = losses.{cls}(self.dis)
        return loss

    def optimize_discriminator(self, noise, real):
        total = 0
        for _ in range(2):
            fake = self.gen(noise).detach()
            loss = self.loss.dis_loss(real, fake)
            self.dis_optim.zero_grad()
            loss.backward()
            self.dis_optim.step()
            total += loss.item()
        return total
"""


def _ad107(tmp_path, cls, base="object"):
    pkg = tmp_path / "gl"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "losses.py").write_text("import torch.nn as nn\n" + textwrap.dedent(LOSSES.format(base=base)))
    path = pkg / "gan.py"
    path.write_text(textwrap.dedent(GAN.format(cls=cls)))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD107"]


def test_loss_object_of_plain_class_holds_no_graph(tmp_path):
    assert _ad107(tmp_path, "WLoss") == []
    assert _ad107(tmp_path, "ModLoss") == []
    here = str(tmp_path / "gl")
    assert is_plain_class(here, "gl.losses.WLoss")  # through a base of its file
    assert is_plain_class(here, "gl.losses.ModLoss")
    assert not is_plain_class(here, "gl.losses.Missing")


def test_loss_module_class_is_not_plain(tmp_path):
    _ad107(tmp_path, "ModLoss", base="nn.Module")
    assert not is_plain_class(str(tmp_path / "gl"), "gl.losses.ModLoss")
