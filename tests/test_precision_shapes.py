"""False positives from real code (issue 8): sums over one step's
sub-iterations, retains that the next iteration needs, leaves made once,
stores under configuration tests, counters read from checkpoints. Each shape
next to the nearest one that must still be reported."""
import textwrap

import autodetach
from autodetach.analysis.summaries import summarize


def codes(src, select="AD1"):
    return sorted((f.code, f.line) for f in autodetach.check_code(textwrap.dedent(src), select=[select]))


SUBITER = """
import torch
net = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    total = 0
    opt.zero_grad()
    for sub in range({inner}):
        loss = net(torch.randn(2, 3)).pow(2).mean()
        loss.backward()
        total += loss
        {step_inside}
    opt.step()
    print(total.item())
"""


def test_sub_iteration_sum_reset_each_step_is_not_reported():
    assert codes(SUBITER.format(inner=2, step_inside="")) == []


def test_sum_across_steps_in_the_inner_loop_is_reported():
    assert codes(SUBITER.format(inner=2, step_inside="opt.step()")) == [("AD102", 11)]


def test_sum_not_reset_by_the_outer_loop_is_reported():
    src = SUBITER.format(inner=2, step_inside="").replace("    total = 0\n", "").replace(
        "net = torch", "total = 0\nnet = torch")
    assert codes(src) == [("AD102", 11)]


def test_else_of_isinstance_variable_is_dead_code_for_tensors():
    meter = """
from torch.autograd import Variable

class averager:
    def add(self, v):
        if isinstance(v, Variable):
            self.sum += v.data.sum()
        else:
            self.sum += v.sum()
"""
    assert summarize(meter)["averager.add"].accum == ()
    assert summarize(meter.replace("isinstance(v, Variable)", "isinstance(v, float)"))["averager.add"].accum != ()


RETAIN = """
import torch
import torch.nn.functional as F

class Attack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.changes = torch.nn.Parameter(torch.zeros(4, 4))
        self.w = torch.nn.Parameter(torch.randn(4, 2))
        self.opt = torch.optim.Adam([self.w])

    def inner(self, feats, adj, labels):
        norm = adj / adj.sum(1, keepdim=True)
        for j in range(3):
            loss = F.cross_entropy(norm @ feats @ self.w, labels)
            self.opt.zero_grad()
            g = torch.autograd.grad(loss, {inputs}, retain_graph=True)[0]
            self.opt.step()
"""


def test_retain_needed_when_inputs_are_reached_only_before_the_loop():
    assert codes(RETAIN.format(inputs="self.changes"), "AD104") == []


def test_retain_unneeded_when_the_loop_builds_the_path_to_the_inputs():
    assert codes(RETAIN.format(inputs="self.w"), "AD104") == [("AD104", 17)]


LEAF = """
import torch

class Agent:
    def __init__(self, device):
        self.net = torch.nn.Linear(3, 1)
        self.opt = torch.optim.Adam(self.net.parameters())
        self.log_alpha = {made}
        self.alpha_opt = torch.optim.Adam([self.log_alpha])

    def train(self, batches):
        for x in batches:
            loss = (self.log_alpha * self.net(x).detach()).mean()
            self.alpha_opt.zero_grad()
            loss.backward()
            self.alpha_opt.step()
"""


def test_leaf_made_in_init_is_no_graph_built_once():
    assert codes(LEAF.format(made="torch.zeros(1, requires_grad=True, device=device)")) == []


GATED = """
import torch

class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.net = torch.nn.Linear(3, 1)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.losses = {{"a": None, "b": None}}

    def fit(self, batches):
        for step, x in enumerate(batches):
            out = self.net(x)
            if {test}:
                self.losses["a"] = out.pow(2).mean()
            self.losses["b"] = out.abs().mean()
            loss = 0
            for key in self.losses:
                if self.losses[key] is not None:
                    loss += self.losses[key]
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
"""


def test_store_under_a_configuration_test_is_replaced_each_iteration():
    assert codes(GATED.format(test="self.cfg.a_weight > 0")) == []


def test_store_under_a_test_that_changes_is_reported_without_a_fix():
    found = autodetach.check_code(textwrap.dedent(GATED.format(test="step % 2 == 0")), select=["AD1"])
    assert [(f.code, f.line) for f in found] == [("AD101", 20)]
    assert [f.fix for f in found] == ["none"]


DISTANCE = """
import torch


def distance(first, second, f, f_op, iters=3):
    pro = torch.randn(4, first.size(1))
    for _ in range(iters):
        proj = f(pro)
        loss = -(first @ proj.t() - second @ proj.t()).pow(2).mean()
        f_op.zero_grad()
        loss.backward(retain_graph=True)
        f_op.step()
    return first.sum()
"""

CALLER = """
import torch
from losses import distance


class AE(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = torch.nn.Linear(2, 6)

    def loss(self, data, f, f_op):
        fake = self.decoder(torch.randn(8, 2))
        return distance(data, {arg}, f, f_op)
"""


def test_retain_needed_when_callers_pass_a_network_output(tmp_path):
    from autodetach.engine import Options, check_source
    from autodetach.registry import select_rules

    (tmp_path / "losses.py").write_text(textwrap.dedent(DISTANCE))
    rules = select_rules(select=["AD104"])
    for arg, expected in (("fake", []), ("fake.detach()", [("AD104", 11)])):
        (tmp_path / "train.py").write_text(textwrap.dedent(CALLER.format(arg=arg)))
        found, _, _ = check_source(textwrap.dedent(DISTANCE), str(tmp_path / "losses.py"), rules, Options())
        assert [(f.code, f.line) for f in found] == expected, arg


def test_callers_read_for_a_needed_retain_are_recorded_as_dependencies():
    """analysis.loop_inputs reads the callers through project.text_of, so the
    result cache serves a file's result only while those callers are unchanged."""
    import os

    from autodetach.analysis.project import take_deps
    from autodetach.engine import Options, process_bytes
    from autodetach.registry import all_rules

    case = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "corpus", "AD104", "ok_retain_needed_samples_from_caller")
    path = os.path.join(case, "losses.py")
    take_deps()
    with open(path, "rb") as fh:
        result = process_bytes(fh.read(), path, all_rules(), Options())
    assert result.findings == []
    assert os.path.realpath(os.path.join(case, "train.py")) in take_deps()
