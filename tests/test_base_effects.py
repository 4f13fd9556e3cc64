"""Effects read from other project files for AD108: the optimizers a base class's
`__init__` builds on `self` and what they own (analysis/base_optimizers.py), a base
class's method that steps `self.X` (Summary.self_steps), and objects of lower-case or
star-imported nn.Module classes (analysis/plain_classes.py)."""
import ast
import textwrap

from autodetach.analysis.base_optimizers import owned_in
from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

BASE = """
import torch
from torch import nn, optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.Q = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 2))
        self.P = nn.Linear(2, 4)
        self.D = nn.Linear(2, 1)


class BaseTraining(object):
    def __init__(self):
        self.net = Net()
        q_params = list(filter(lambda p: p.requires_grad, self.net.Q.parameters()))
        self.optimizer_E = optim.Adam(q_params, lr=1e-3)
        self.optimizer_G = optim.Adam(self.net.P.parameters(), lr=1e-3)
        self.optimizer_D = optim.Adam([{"params": self.net.D.parameters()}], lr=1e-3)

    def update_encoding(self, z):
        loss_e = -torch.sigmoid(self.net.D(z)).log().mean()
        loss_e.backward(retain_graph=True)
        self.optimizer_E.step()
        return loss_e.item()

    def update_critic(self, z):
        loss_d = torch.sigmoid(self.net.D(z.detach())).mean()
        loss_d.backward()
        self.optimizer_D.step()
        return loss_d.item()
"""

TRAIN = """
import torch
from base import BaseTraining


class Training(BaseTraining):
    def run_batch(self, x):
        self.net.zero_grad()
        z = self.net.Q(x)
        self.{helper}(z)
        loss = (self.net.P(z) - x).pow(2).mean()
        loss.backward()
        self.optimizer_E.step()
        self.optimizer_G.step()

    def train(self, batches):
        for x in batches:
            self.run_batch(x)
"""


def _check(tmp_path, files, main):
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    path = tmp_path / main
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return findings


def test_owned_in_reads_named_lists_filters_and_groups():
    init = ast.parse(textwrap.dedent(BASE)).body[-1].body[0]
    assert owned_in(init) == {"self.optimizer_E": {"self.net.Q"}, "self.optimizer_G": {"self.net.P"},
                              "self.optimizer_D": {"self.net.D"}}
    other = ast.parse(textwrap.dedent("""
        def __init__(self, cfg):
            params = list(self.a.parameters()) + list(self.b.parameters())
            self.opt = torch.optim.SGD(params, lr=0.1)
            self.aed = [p for p in self.c.parameters() if p.requires_grad]
            self.opt_c = Adam(self.aed)
            self.opt_x = Adam(self.build_params(cfg))
    """)).body[0]
    assert owned_in(other) == {"self.opt": {"self.a", "self.b"}, "self.opt_c": {"self.c"}}


def test_self_steps_in_the_summary():
    table = summarize(textwrap.dedent(BASE))
    enc, critic = table["BaseTraining.update_encoding"], table["BaseTraining.update_critic"]
    assert enc.self_steps == ("optimizer_E",) and enc.backward_params == ("z",)
    # the critic's loss reads z only through z.detach(): it backwards no graph of its argument
    assert critic.self_steps == ("optimizer_D",) and critic.backward_params == ()


def test_base_class_method_steps_the_encoder(tmp_path):
    found = [f for f in _check(tmp_path, {"base.py": BASE, "train.py": TRAIN.format(helper="update_encoding")},
                               "train.py") if f.code == "AD108"]
    assert [f.line for f in found] == [12]
    assert "`self.optimizer_E` is built by `BaseTraining.__init__` (base.py)" in found[0].message
    assert "`update_encoding` (read from another file)" in found[0].message
    # z is computed again before the loss: unsafe, as every AD108 fix (and what is stepped is inferred)
    assert found[0].fix == "unsafe"


def test_base_class_method_stepping_another_part_is_clean(tmp_path):
    files = {"base.py": BASE, "train.py": TRAIN.format(helper="update_critic")}
    assert [f for f in _check(tmp_path, files, "train.py") if f.code == "AD108"] == []


GEN = """
import torch
from torch import nn


class styletransfer(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8))
        self.dec = nn.Linear(8, 4)
        self.aed_params = list(self.enc.parameters()) + list(self.dec.parameters())

    def encoder(self, x):
        return self.enc(x)

    def decoder(self, h):
        return self.dec(h)
"""

LOOP = """
import torch
from torch import optim
{imp}

genmodel = {make}.cuda()
cls = torch.nn.Linear(4, 2)
aed_trainer = optim.Adamax(genmodel.aed_params, lr=1e-3)
gen_trainer = optim.Adamax(genmodel.aed_params, lr=1e-3)
for x in [torch.randn(2, 4)] * 3:
    vocab_out = genmodel.decoder(genmodel.encoder(x))
    recon_loss = (vocab_out - x).pow(2).mean()
    aed_trainer.zero_grad()
    recon_loss.backward(retain_graph=True)
    aed_trainer.step()
    gen_cls_loss = cls(vocab_out).mean()
    gen_trainer.zero_grad()
    gen_cls_loss.backward()
    gen_trainer.step()
"""


def test_lower_case_model_classes(tmp_path):
    for imp, make in [("from gen_model import *", "styletransfer()"),
                      ("from gen_model import styletransfer", "styletransfer()"),
                      ("import gen_model as gm", "gm.styletransfer()")]:
        files = {"gen_model.py": GEN, "train.py": LOOP.format(imp=imp, make=make)}
        found = _check(tmp_path, files, "train.py")
        # the decoder's output carries a graph: AD108 at the second backward, and no safe AD104
        assert [(f.code, f.line) for f in found] == [("AD108", 18)], (imp, [f.message for f in found])
        assert found[0].fix == "none"


def test_lower_case_function_is_no_module(tmp_path):
    gen = GEN + "\n\ndef build():\n    return 3\n"
    files = {"gen_model.py": gen, "train.py": "from gen_model import *\nm = build()\nprint(m + 1)\n"}
    assert _check(tmp_path, files, "train.py") == []


FACTOR = """
import torch
import torch.nn.functional as F
from torch import nn


def factor_init():
    PermD = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2))
    return PermD, torch.optim.Adam(PermD.parameters())


def factor_loss_fn(w_tc, PermD, optim_PermD, ones, zeros, **kwargs):
    z = kwargs['z']
    dz_true = PermD(z)
    vae_tc_loss = (dz_true[:, 0] - dz_true[:, 1]).mean() * w_tc
    dz_perm = PermD(z[torch.randperm(z.size(0))].detach())
    d_loss = (F.cross_entropy(dz_true, zeros) + F.cross_entropy(dz_perm, ones)) * 0.5
    optim_PermD.zero_grad()
    d_loss.backward(retain_graph=True)
    optim_PermD.step(){fresh}
    return vae_tc_loss, d_loss
"""

FACTOR_TRAIN = """
import torch
from torch import nn
from factor import factor_init, factor_loss_fn

enc = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
PermD, optim_PermD = factor_init()
optim_G = torch.optim.Adam(enc.parameters())
ones, zeros = torch.ones(8, dtype=torch.long), torch.zeros(8, dtype=torch.long)
for x in [torch.randn(8, 4)] * 3:
    z = enc(x)
    tc, d = factor_loss_fn(1.0, PermD, optim_PermD, ones, zeros, z=z)
    loss = z.pow(2).mean() + {term}
    optim_G.zero_grad()
    loss.backward()
    optim_G.step()
"""


def test_loss_function_returns_a_term_built_before_its_step(tmp_path):
    # the optimizer comes from a factory: what it steps is read from the loss function's own backward
    files = {"factor.py": FACTOR.format(fresh=""), "train.py": FACTOR_TRAIN.format(term="tc")}
    found = [f for f in _check(tmp_path, files, "train.py") if f.code == "AD108"]
    assert [f.line for f in found] == [15]
    assert "returns a value it built from `PermD` before it steps `optim_PermD`" in found[0].message
    assert found[0].fix == "none"


def test_loss_function_term_built_after_its_step_or_not_backwarded(tmp_path):
    fresh = "\n    dz_true = PermD(z)\n    vae_tc_loss = dz_true.mean() * w_tc"
    files = {"factor.py": FACTOR.format(fresh=fresh), "train.py": FACTOR_TRAIN.format(term="tc")}
    assert [f for f in _check(tmp_path, files, "train.py") if f.code == "AD108"] == []
    files = {"factor.py": FACTOR.format(fresh=""), "train.py": FACTOR_TRAIN.format(term="tc.item()")}
    assert [f for f in _check(tmp_path, files, "train.py") if f.code == "AD108"] == []
