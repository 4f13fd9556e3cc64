"""Roles of function parameters from annotations, usage and names
(analysis/roles.py), and how findings that rest on them are labelled."""
import textwrap

import libcst as cst
import pytest

from autodetach.analysis.names import build_names
from autodetach.analysis.roles import looks_like_loss, pair, side
from autodetach.engine import Options, check_source
from autodetach.imports import ImportTable
from autodetach.registry import all_rules


def _names(src):
    mod = cst.parse_module(textwrap.dedent(src))
    return build_names(mod, ImportTable.from_module(mod))


def _check(src, **kw):
    findings, new, _ = check_source(textwrap.dedent(src), "case.py", all_rules(), Options(**kw))
    return findings, new


GAN = """
import torch
import torch.nn as nn

def train(G, D, opt_g, opt_d, loader, nz=8):
    bce = nn.BCELoss()
    for real in loader:
        fake = G(torch.randn(real.size(0), nz))
        opt_d.zero_grad()
        d_loss = bce(D(real), torch.ones(real.size(0), 1)) + bce(D(fake), torch.zeros(real.size(0), 1))
        d_loss.backward(); opt_d.step()
        opt_g.zero_grad()
        g_loss = bce(D(fake), torch.ones(real.size(0), 1))
        g_loss.backward(); opt_g.step()
"""


def test_side_pairs_optimizers_with_models():
    assert side("opt_d") == side("D") == side("netD") == side("optimizerD") == "d"
    assert side("optimizer_G") == side("netG") == side("generator") == "g"
    assert pair("opt_d", ["G", "D"]) == {"D"}
    assert pair("optimizer", ["model"]) == {"model"}
    assert pair("optimizer", ["enc", "dec"]) == set()  # unclear: no owner


def test_roles_from_usage_in_a_training_function():
    t = _names(GAN)
    assert t.modules["G"] == "param" and t.modules["D"] == "param"
    assert t.optimizers["opt_d"].owns == frozenset({"D"})
    assert "paired by name" in t.inferred["opt_g"]
    assert "called on tensors" in t.inferred["G"]


def test_roles_from_annotations_are_not_inferences():
    t = _names("""
        import torch
        from torch import nn
        def fit(model: nn.Module, opt: torch.optim.Optimizer, xs):
            for x in xs:
                opt.zero_grad(); model(x).sum().backward(); opt.step()
    """)
    assert t.modules["model"] == "param" and "model" not in t.inferred
    assert "opt" in t.optimizers


def test_called_parameter_outside_training_is_not_a_module():
    t = _names("""
        def apply(f, net, xs):
            return [net(x) for x in xs]
        def train(transform, model, opt, xs):
            for x in xs:
                opt.zero_grad(); model(transform(x)).sum().backward(); opt.step()
    """)
    assert "net" not in t.modules  # no optimizer, no backward in `apply`
    assert "transform" not in t.modules  # a function's name
    assert t.modules["model"] == "param"


def test_gan_in_a_function_is_reported_with_an_unsafe_fix():
    findings, _ = _check(GAN)
    ad103 = [f for f in findings if f.code == "AD103"]
    assert len(ad103) == 1
    assert ad103[0].fix == "unsafe"
    assert "inferred: " in ad103[0].message and "`opt_d` is an optimizer" in ad103[0].message
    _, new = _check(GAN, fix=True)
    assert new is None  # not applied without --unsafe-fixes
    _, new = _check(GAN, fix=True, unsafe=True)
    assert "D(fake.detach())" in new


def test_constructed_roles_stay_safe():
    src = GAN.replace("def train(G, D, opt_g, opt_d, loader, nz=8):",
                      "def train(loader, nz=8):\n"
                      "    G = nn.Linear(8, 4); D = nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())\n"
                      "    opt_g = torch.optim.SGD(G.parameters(), lr=0.1)\n"
                      "    opt_d = torch.optim.SGD(D.parameters(), lr=0.1)")
    findings, _ = _check(src)
    ad103 = [f for f in findings if f.code == "AD103"]
    assert len(ad103) == 1 and ad103[0].fix == "safe" and "inferred" not in ad103[0].message


TRAINER = """
import torch
from torch import nn

class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.hidden = None

    def backward_step(self, loss):
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()

    def train_step(self, x, y):
        out, self.hidden = self.model(x, self.hidden)
        self.backward_step(nn.functional.mse_loss(out, y))
"""


def test_state_on_self_across_calls_is_reported_as_an_assumption():
    findings, _ = _check(TRAINER)
    ad106 = [f for f in findings if f.code == "AD106"]
    assert len(ad106) == 1 and ad106[0].fix == "unsafe"
    assert "the loop is in the caller: `train_step`" in ad106[0].message


def test_state_reset_in_each_call_is_not_reported():
    src = TRAINER.replace("out, self.hidden = self.model(x, self.hidden)",
                          "out, self.hidden = self.model(x, None)")
    findings, _ = _check(src)
    assert [f for f in findings if f.code == "AD106"] == []
    src = TRAINER.replace("    def train_step(self, x, y):\n",
                          "    def train_step(self, x, y):\n        x = x * 2\n")
    findings, _ = _check(src)
    assert [f.code for f in findings if f.code.startswith("AD1")] == ["AD106"]  # `x` is fresh each call


CLOSURE = """
import torch

def train(model, loader, optimizer, crit):
    total = 0
    for x, y in loader:
        def closure():
            optimizer.zero_grad()
            loss = crit(model(x), y)
            loss.backward()
            return loss
        loss = optimizer.step(closure)
        total += {acc}
    print(total)
"""


def test_optimizer_step_closure_is_walked():
    findings, _ = _check(CLOSURE.format(acc="loss"))
    assert [f.code for f in findings] == ["AD102"]
    assert "`optimizer` is an optimizer" in findings[0].message
    findings, _ = _check(CLOSURE.format(acc="loss.item()"))
    assert findings == []


LIGHTNING_GAN = """
import torch
import pytorch_lightning as pl

class GAN(pl.LightningModule):
    def __init__(self, G, D):
        super().__init__()
        self.G = G
        self.D = D
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        opt_g, opt_d = self.optimizers()
        fake = self.G(torch.randn(4, 8))
        d_loss = self.D(batch).mean() - self.D(fake).mean()
        opt_d.zero_grad()
        self.manual_backward(d_loss)
        opt_d.step()
        g_loss = -self.D(fake).mean()
        opt_g.zero_grad()
        self.manual_backward(g_loss)
        opt_g.step()
        self.log("g", g_loss)
"""


def test_attribute_roles_and_lightning_optimizers():
    t = _names(LIGHTNING_GAN)
    assert t.modules["self.G"] == "param" and "self.log" not in t.modules
    assert t.optimizers["opt_d"].owns == frozenset({"self.D"})
    findings, _ = _check(LIGHTNING_GAN)
    ad103 = [f for f in findings if f.code == "AD103"]
    assert len(ad103) == 1 and ad103[0].fix == "unsafe"
    assert "`opt_d` is an optimizer (from self.optimizers())" in ad103[0].message


def test_attribute_roles_from_a_tuple_assignment():
    """`self.G, self.D, self.opt_g, self.opt_d = G, D, opt_g, opt_d` in
    `__init__`, one step per method: the roles are those of four separate
    assignments, so the D step that frees G's graph is found. The optimizers
    are paired with G and D by name only, so G's gradients from the D step are
    taken to be zeroed (detach, AD103) and the fix is unsafe."""
    t = _names(TUPLE_ATTRS)
    assert t.modules["self.G"] == "param" and t.modules["self.D"] == "param"
    assert t.optimizers["self.opt_d"].owns == {"self.D"} and t.optimizers["self.opt_g"].owns == {"self.G"}
    findings, _ = _check(TUPLE_ATTRS)
    assert [(f.code, f.fix) for f in findings] == [("AD103", "unsafe")]
    assert "it steps `self.G` (paired by name)" in findings[0].message
    assert "needs it again" in findings[0].message


TUPLE_ATTRS = """
import torch


class GAN:
    def __init__(self, G, D, opt_g, opt_d):
        self.G, self.D, self.opt_g, self.opt_d = G, D, opt_g, opt_d

    def d_step(self, real, fake):
        self.opt_d.zero_grad()
        loss = self.D(real).mean() - self.D(fake).mean()
        loss.backward()
        self.opt_d.step()

    def g_step(self, fake):
        self.opt_g.zero_grad()
        loss = -self.D(fake).mean()
        loss.backward()
        self.opt_g.step()

    def train(self, loader):
        for real in loader:
            fake = self.G(torch.randn(real.size(0), 2))
            self.d_step(real, fake)
            self.g_step(fake)
"""


def test_tuple_returns_only_the_graph_elements_carry_it():
    src = TUPLE
    findings, _ = _check(src.format(acc="loss.item()"))
    assert findings == []  # n_word is a number (.item() in the helper)
    findings, _ = _check(src.format(acc="loss"))
    assert [f.code for f in findings] == ["AD102"]


TUPLE = """
import torch
import torch.nn.functional as F

def cal_performance(pred, gold):
    loss = F.cross_entropy(pred, gold)
    n_word = gold.ne(0).sum().item()
    return loss, n_word

def train(model, loader, optimizer):
    model.train()
    total_loss, n_word_total = 0, 0
    for x, y in loader:
        optimizer.zero_grad()
        loss, n_word = cal_performance(model(x), y)
        loss.backward()
        optimizer.step()
        n_word_total += n_word
        total_loss += {acc}
    print(total_loss, n_word_total)
"""

INPLACE = """
import torch

def train(rnn, data, params, lr):
    state = torch.zeros(2, 3)
    for X, Y in data:
        for s in state:
            {cut}
        outputs, state = rnn(X, state, params)
        outputs.sum().backward()
"""


def test_in_place_detach_of_the_state_elements_cuts_it():
    findings, _ = _check(INPLACE.format(cut="s.detach_()"))
    assert findings == []
    findings, _ = _check(INPLACE.format(cut="pass"))
    assert [f.code for f in findings] == ["AD106"]


def test_torch_from_a_project_star_import():
    star = ImportTable.from_module(cst.parse_module("from utils import *\n"))
    assert star.qualify(cst.parse_expression("torch.optim.Adam")) == "torch.optim.Adam"
    assert star.qualify(cst.parse_expression("nn.Linear")) == "torch.nn.Linear"
    assert star.qualify(cst.parse_expression("np.array")) is None
    plain = ImportTable.from_module(cst.parse_module("import os\n"))
    assert plain.qualify(cst.parse_expression("torch.optim.Adam")) is None


def test_loss_side_from_names():
    from autodetach.analysis.argument_losses import loss_side

    assert [loss_side(n) for n in ("gen_loss", "loss_G", "errG", "g_loss")] == ["g"] * 4
    assert [loss_side(n) for n in ("dis_loss", "loss_D", "errD")] == ["d"] * 3
    assert [loss_side(n) for n in ("loss", "l1_loss", "mse", "total")] == [""] * 4


@pytest.mark.parametrize("name,loss", [
    ("loss", True), ("d_loss", True), ("lossD", True), ("self.criterion", True), ("criterionGAN", True),
    ("self.crit", True), ("bce_fake", True), ("torch.nn.functional.cross_entropy", True), ("kl", True),
    ("train_MSE", True), ("model1", False), ("avg_pool1d", False), ("loss.weight", False),
    ("accuracy", False), ("scale", False),
])
def test_one_loss_name_heuristic(name, loss):
    """flow.py, roles.py and AD203 ask the same question the same way."""
    assert looks_like_loss(name) is loss


LISTS = """
import torch.nn.functional as F

def train(models, optimizers, batches):
    [encoder, regressor, head] = models
    optimizer, optimizer_conf = optimizers
    first = models[0]
    for data, target, dom in batches:
        optimizer.zero_grad()
        features = encoder(data)
        loss = F.mse_loss(regressor(features), target)
        loss.backward(retain_graph=True)
        optimizer.step()
        optimizer_conf.zero_grad()
        loss_conf = F.mse_loss(head(features), dom)
        loss_conf.backward()
        optimizer_conf.step()
"""


def test_roles_of_names_unpacked_from_a_parameter():
    t = _names(LISTS)
    assert {"encoder", "regressor", "head"} <= set(t.modules)
    assert set(t.optimizers) == {"optimizer", "optimizer_conf"}
    assert t.optimizers["optimizer"].owns is None  # built by the caller: not known
    assert "first" not in t.modules  # never used as a module


def test_unpacked_name_bound_twice_is_not_a_role():
    t = _names(LISTS.replace("    for data,", "    encoder = make()\n    for data,"))
    assert "encoder" not in t.modules
    assert "regressor" in t.modules


def test_unpacked_modules_keep_a_needed_retain_and_report_the_step():
    findings, _ = _check(LISTS)
    codes = sorted((f.code, f.line) for f in findings)
    assert ("AD104", 11) not in codes  # the retain is needed: loss_conf goes through `features`
    ad108 = [f for f in findings if f.code == "AD108"]
    assert [f.line for f in ad108] == [16]
    assert "taken to step `encoder`" in ad108[0].message and ad108[0].fix == "none"


def test_step_of_unknown_optimizer_not_cleared_before_is_not_reported():
    src = LISTS.replace("        optimizer.zero_grad()\n", "")
    findings, _ = _check(src)
    assert not [f for f in findings if f.code == "AD108"]
