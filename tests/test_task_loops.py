"""Per-task loss loops and the graphs they walk (recall on unseen code):
comprehensions that bind tuple targets and build dicts, a retain on the
last task of a list handed in or of state another file fills, a helper of
another file that cuts some of its arguments, and the steps AD108 sees
before a loop, through a dict entry's alias, and in a phase method's state."""
import os
import textwrap

from autodetach import check_code
from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

HEAD = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(10, 16)
        self.heads = nn.ModuleList([nn.Linear(16, 1) for _ in range(3)])

    def forward(self, x):
        h = self.trunk(x)
        return [head(h) for head in self.heads]


def train(model, optimizer, steps):
    crit = nn.MSELoss()
    for step in range(steps):
        x = torch.randn(8, 10)
        ys = [x[:, :1] * k for k in (1.0, -2.0, 0.5)]
        preds = model(x)
"""


def _codes(source, code="AD104"):
    return [(f.line, f.message) for f in check_code(textwrap.dedent(source)) if f.code == code]


def _loop(build, loop, backward, after=""):
    return HEAD + f"        {build}\n        {loop}\n            optimizer.zero_grad()\n" \
                  f"            {backward}\n{after}        optimizer.step()\n"


def test_comprehension_binds_zip_tuple_targets_for_a_loop_over_elements():
    src = _loop("losses = [crit(p, y) for p, y in zip(preds, ys)]", "for i, loss in enumerate(losses):",
                "loss.backward(retain_graph=True)")
    found = _codes(src)
    assert len(found) == 1 and "retain only while `i < len(losses) - 1`" in found[0][1]


def test_dict_comprehension_values_are_the_losses():
    src = _loop("losses = {k: crit(p, y) for k, (p, y) in enumerate(zip(preds, ys))}",
                "for i, loss in enumerate(losses.values()):", "loss.backward(retain_graph=True)")
    found = _codes(src)
    assert len(found) == 1 and "`i < len(losses) - 1`" in found[0][1]


def test_loop_without_index_is_reported_without_fix():
    src = _loop("losses = [crit(p, y) for p, y in zip(preds, ys)]", "for loss in losses:",
                "loss.backward(retain_graph=True)")
    found = check_code(textwrap.dedent(src))
    assert [f.code for f in found] == ["AD104"] and found[0].fix == "none"


def test_a_later_backward_of_the_same_losses_keeps_the_retain():
    src = _loop("losses = {k: crit(p, y) for k, (p, y) in enumerate(zip(preds, ys))}",
                "for i, loss in enumerate(losses.values()):", "loss.backward(retain_graph=True)",
                "        sum(losses.values()).backward()\n")
    assert _codes(src) == []


def test_summary_cuts_through_a_loss_object_built_in_place():
    table = summarize(textwrap.dedent("""
        import torch
        from torch import nn

        def d_loss(netD, real, fake):
            fake_logits = netD(fake.detach())
            err = nn.BCELoss()(fake_logits, torch.zeros_like(fake_logits))
            return err + nn.BCELoss()(netD(real), torch.ones_like(fake_logits))
    """))
    assert table["d_loss"].arg_flow == ("graph", "graph", "cut")


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    os.utime(path, ns=(1, 1))


def _check(tmp_path, files, main="train.py"):
    for name, text in files.items():
        _write(tmp_path / name, text)
    text = (tmp_path / main).read_text()
    found, _, _ = check_source(text, str(tmp_path / main), all_rules(), Options())
    return found


ARCH = """
from torch import nn


class Arch(nn.Module):
    def __init__(self, task_name):
        super().__init__()
        self.task_name = task_name
        self.encoder = nn.Linear(4, 4)
        self.rep = {}

    def forward(self, x):
        shared = self.encoder(x)
        for task in self.task_name:
            self.rep[task] = shared * 1.0
        return shared
"""

WEIGHT = """
import torch
from arch import Arch


class Weighting:
    def backward(self, grads):
        for tn, task in enumerate(self.task_name):
            self.rep[task].backward(grads[tn], retain_graph=True)
{after}

class Model(Arch, Weighting):
    pass
"""


def test_last_task_retain_of_state_another_file_fills(tmp_path):
    found = _check(tmp_path, {"arch.py": ARCH, "train.py": WEIGHT.replace("{after}", "")})
    assert [f.code for f in found] == ["AD104"]
    assert "`self.rep`, a graph built out of sight" in found[0].message and found[0].fix == "unsafe"


def test_state_backwarded_again_by_another_method_keeps_the_retain(tmp_path):
    after = "        self.penalty()\n\n    def penalty(self):\n" \
            "        sum(r.sum() for r in self.rep.values()).backward()\n"
    found = _check(tmp_path, {"arch.py": ARCH, "train.py": WEIGHT.replace("{after}", after)})
    assert [f.code for f in found if f.code == "AD104"] == []


SURGERY = """
import torch


class Surgery:
    def __init__(self, optimizer):
        self._optim = optimizer

    def pc_backward(self, objectives):
        return self._pack_grad(objectives)

    def _pack_grad(self, objectives):
        grads = []
        for obj in objectives:
            self._optim.zero_grad()
            obj.backward(retain_graph=True)
            grads.append([p.grad for g in self._optim.param_groups for p in g["params"]])
        return grads
"""

CALLER = """
import torch
from surgery import Surgery


def train(model, opt, batches):
    surgery = Surgery(opt)
    for x in batches:
        losses = [model(x).sum(), model(x).mean()]
        surgery.pc_backward(losses)
{after}        opt.step()
"""


def test_last_objective_retained_for_nothing_is_reported(tmp_path):
    found = _check(tmp_path, {"surgery.py": SURGERY, "caller.py": CALLER.replace("{after}", "")}, "surgery.py")
    assert [f.code for f in found] == ["AD104"] and "for obj in objectives" in found[0].message


def test_a_callers_caller_backwarding_the_objectives_keeps_the_retain(tmp_path):
    files = {"surgery.py": SURGERY, "caller.py": CALLER.replace("{after}", "        sum(losses).backward()\n")}
    assert [f.code for f in _check(tmp_path, files, "surgery.py")] == []


AD108_ENTRY = """
import torch
from torch import nn


class Solver:
    def __init__(self, nets):
        self.nets = nets
        self.fe = self.nets["fe"]
        self.cls = self.nets["cls"]
        self.opt_fe = torch.optim.SGD(self.nets["fe"].parameters(), lr=0.1)
        self.opt_cls = torch.optim.SGD(self.nets["cls"].parameters(), lr=0.1)

    def update(self, batches):
        for x in batches:
            out = self.cls(self.fe(x))
            loss_cls, loss_fe = out.mean(), out.pow(2).mean()
            self.opt_cls.zero_grad()
            loss_cls.backward(retain_graph=True)
            self.opt_cls.step()
            self.opt_fe.zero_grad()
            loss_fe.backward()
            self.opt_fe.step()
"""


def test_attribute_alias_of_a_dict_entry_is_the_module_its_optimizer_steps():
    found = _codes(AD108_ENTRY, "AD108")
    assert [line for line, _ in found] == [22] and "`self.opt_cls.step()` (line 20)" in found[0][1]
    fixed = AD108_ENTRY.replace("            self.opt_cls.step()\n", "").replace(
        "            self.opt_fe.step()\n", "            self.opt_fe.step()\n            self.opt_cls.step()\n")
    assert _codes(fixed, "AD108") == []


AD108_INNER = """
import torch
from torch import nn


class Trainer:
    def __init__(self, tagger, predictor, extra=None):
        self.tagger, self.predictor = tagger, predictor
        if extra is None:
            params = [{"params": tagger.parameters()}, {"params": predictor.parameters()}]
        else:
            params = [{"params": tagger.parameters()}, {"params": extra.parameters()}]
        self.opt = torch.optim.Adam(params)

    def step(self, x, golds):
        hiddens = self.tagger(x)
        loss = hiddens.mean()
        self.opt.zero_grad()
        loss.backward(retain_graph=True)
        self.opt.step()
{refresh}        for pred, gold in zip(self.predictor(hiddens), golds):
            self.opt.zero_grad()
            (pred - gold).pow(2).mean().backward()
            self.opt.step()
"""


def test_step_before_the_loop_of_the_backward():
    found = _codes(AD108_INNER.replace("{refresh}", ""), "AD108")
    assert [line for line, _ in found] == [23] and "before `self.opt.step()` (line 20) updated" in found[0][1]
    assert "previous iteration" not in found[0][1]


def test_recomputed_after_the_step_is_left_to_the_loop_steps():
    refreshed = AD108_INNER.replace("{refresh}", "        hiddens = self.tagger(x).detach()\n")
    assert _codes(refreshed, "AD108") == []


AD108_PHASE = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = nn.Linear(4, 4)
        self.dis = nn.Linear(4, 1)
        self.gen_opt = torch.optim.SGD(self.gen.parameters(), lr=0.1)
        self.dis_opt = torch.optim.SGD(self.dis.parameters(), lr=0.1)

    def forward(self):
        self.fake = self.gen(self.input)
        self.fake2 = self.gen(self.input * 2)

    def update_D(self, x):
        self.input = x
        self.forward()
        self.dis_opt.zero_grad()
        self.dis(self.fake.detach()).mean().backward()
        self.dis_opt.step()

    def update_G(self):
        self.gen_opt.zero_grad()
        self.dis(self.fake).mean().backward()
        self.gen_opt.step()
{refresh}        self.gen_opt.zero_grad()
        (self.fake2 - self.fake).abs().mean().backward()
        self.gen_opt.step()
"""


def test_state_a_phase_method_stored_is_stale_after_the_step():
    found = _codes(AD108_PHASE.replace("{refresh}", ""), "AD108")
    assert [line for line, _ in found] == [30] and "`update_G` is taken to run after `forward`" in found[0][1]


def test_phase_method_run_again_after_the_step_is_left_alone():
    found = check_code(textwrap.dedent(AD108_PHASE.replace("{refresh}", "        self.forward()\n")))
    assert [(f.code, f.line) for f in found if f.code in ("AD101", "AD108")] == []


AD108_ARMS = """
import torch
from torch import nn


def train(model, optimizer, batches, method):
    for x in batches:
        losses = [model(x).mean(), model(x).pow(2).mean()]
        optimizer.zero_grad()
        if method == "a":
            for i in range(2):
                if i == 0:
                    losses[i].backward(retain_graph=True)
                else:
                    losses[i].backward()
            optimizer.step()
        elif method == "b":
            for i in range(2):
                if i == 0:
                    losses[i].backward(retain_graph=True)
                else:
                    losses[i].backward()
            optimizer.step()
"""


def test_step_in_another_arm_is_not_before_the_inner_loop():
    assert _codes(AD108_ARMS, "AD108") == []


WEIGHTS = """
import torch


class MetaWeights:
    def __init__(self, model, n):
        self.model = model
        self.meta_weights = torch.tensor([0.1] * n, requires_grad=True)
"""

WEIGHTED = """
import torch
from torch import nn
from weights import MetaWeights

model = nn.Linear(4, 2)
meta = MetaWeights(model, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x in [torch.randn(3, 4) for _ in range(3)]:
    out = model(x)
    losses = [out[:, 0].mean(), out[:, 1].mean()]
    weighted = [w * losses[i] for i, w in enumerate(meta.meta_weights)]
    optimizer.zero_grad()
    for i in range(2):
        weighted[i].backward(retain_graph=True)
    optimizer.step()
"""


def test_attribute_of_another_files_object_is_not_its_constructors_graph(tmp_path):
    # `meta.meta_weights` does not hang from the `model` handed to `MetaWeights(...)`, built before the loop
    found = _check(tmp_path, {"weights.py": WEIGHTS, "train.py": WEIGHTED})
    assert [(f.code, f.line) for f in found] == [("AD104", 15)]
