"""Cuts the analysis must see before it detaches (issue 8): a loss helper of
another file that detaches some of its arguments, a helper that returns a
number, a list made by repeating a literal, a step method's locals. Each next
to the nearest shape that must still be reported."""
import textwrap

import autodetach
from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.registry import select_rules

LOSSES = """
import torch
import torch.nn as nn


def d_loss(net_d, real, fake, cond):
    criterion = nn.BCELoss()
    {cut_cond}
    fake = fake.detach()
    err_real = criterion(net_d(torch.cat([real, cond], 1)), torch.ones(8, 1))
    err_fake = criterion(net_d(torch.cat([fake, cond], 1)), torch.zeros(8, 1))
    return err_real + err_fake, err_real.item()
"""

TRAIN = """
import torch
import torch.nn as nn
from losses import d_loss

net_g = nn.Linear(6, 8)
net_d = nn.Sequential(nn.Linear(8, 1), nn.Sigmoid())
opt_g = torch.optim.Adam(net_g.parameters())
opt_d = torch.optim.Adam(net_d.parameters())
for it in range(3):
    h = net_g(torch.randn(8, 6))
    fake, mu = h[:, :4], h[:, 4:]
    net_d.zero_grad()
    err_d, err_real = d_loss(net_d, torch.randn(8, 4), fake, mu)
    err_d.backward()
    opt_d.step()
    net_g.zero_grad()
    err_g = net_d(torch.cat([fake, mu], 1)).mean() + mu.pow(2).mean()
    err_g.backward()
    opt_g.step()
"""


def _findings(tmp_path, files: dict, name="train.py", select=("AD1",)):
    for path, text in files.items():
        (tmp_path / path).write_text(textwrap.dedent(text))
    found, _, _ = check_source((tmp_path / name).read_text(), str(tmp_path / name),
                               select_rules(select=list(select)), Options())
    return [(f.code, f.line, f.fix) for f in found]


def test_helper_summary_says_which_arguments_each_element_hangs_from():
    summary = summarize(textwrap.dedent(LOSSES.format(cut_cond="cond = cond.detach()")))["d_loss"]
    assert summary.params == ("net_d", "real", "fake", "cond")
    assert summary.arg_flow == ("graph", "graph", "cut", "cut")
    assert summary.elem_flow[0] == ("graph", "graph", "cut", "cut")
    assert set(summary.elem_flow[1]) == {"cut"}  # `err_real.item()`
    # `cond` read as it was handed in: its graph reaches the result
    summary = summarize(textwrap.dedent(LOSSES.format(cut_cond="")))["d_loss"]
    assert summary.arg_flow == ("graph", "graph", "cut", "graph")


def test_parameter_read_before_it_is_reassigned_keeps_its_graph():
    src = """
def f(x, y):
    z = x * 2
    x = x.detach()
    return z + x, y.item()
"""
    assert summarize(textwrap.dedent(src))["f"].elem_flow[0] == ("graph", "const")
    first = src.replace("    z = x * 2\n    x = x.detach()\n", "    x = x.detach()\n    z = x * 2\n")
    assert summarize(textwrap.dedent(first))["f"].elem_flow[0] == ("cut", "cut")


def test_helper_that_detaches_every_shared_argument_gives_no_finding(tmp_path):
    files = {"losses.py": LOSSES.format(cut_cond="cond = cond.detach()"), "train.py": TRAIN}
    assert _findings(tmp_path, files, select=["AD103"]) == []


def test_helper_that_keeps_an_argument_graph_is_still_reported(tmp_path):
    files = {"losses.py": LOSSES.format(cut_cond=""), "train.py": TRAIN}
    found = _findings(tmp_path, files, select=["AD103"])
    assert [(code, line) for code, line, _ in found] == [("AD103", 14)]


SCORE = """
import torch


def seq_score(logits, ref):
    tokens = torch.max(logits.data, dim=1)[1].cpu().numpy()
    return overlap(tokens, ref)


def overlap(tokens, ref):
    return sum(int(a == b) for a, b in zip(tokens, ref)) / len(ref)
"""

SCORE_LOOP = """
import torch
import metrics

net = torch.nn.Linear(6, 5)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
score_sum = 0.0
for it in range(3):
    out = net(torch.randn(8, 6))
    score_sum += metrics.seq_score(out, [1, 2, 3])
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_helper_on_cut_values_holds_none_of_its_parameter():
    summary = summarize(textwrap.dedent(SCORE))["seq_score"]
    assert summary.result == "cut"  # `overlap` of this file returns a number whatever it is handed
    assert summary.arg_flow == ("cut", "cut")
    # a scorer out of sight: the result is not known, but it is handed only `logits.data`
    unseen = summarize(textwrap.dedent(SCORE).replace("return overlap(", "return scorer.overlap("))["seq_score"]
    assert unseen.result == "unknown"
    assert unseen.arg_flow[0] == "cut"


def test_score_helper_returning_a_number_is_not_a_kept_graph(tmp_path):
    assert _findings(tmp_path, {"metrics.py": SCORE, "train.py": SCORE_LOOP}) == []
    # the helper returns the logits themselves: their graph is kept
    kept = SCORE.replace("    return overlap(tokens, ref)", "    return logits.sum() + overlap(tokens, ref)")
    found = _findings(tmp_path, {"metrics.py": kept, "train.py": SCORE_LOOP})
    assert [(code, line) for code, line, _ in found] == [("AD101", 10)]


def test_kept_value_from_code_not_followed_gets_an_unsafe_fix():
    src = """
import torch
from scorelib import bleu

net = torch.nn.Linear(4, 4)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
total = 0.0
for it in range(3):
    out = net(torch.randn(2, 4))
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += {value}
"""
    unseen = autodetach.check_code(textwrap.dedent(src.format(value="bleu(out, [1, 2])")), select=["AD101"])
    assert [(f.code, f.line, f.fix) for f in unseen] == [("AD101", 14, "unsafe")]
    assert "code that was not followed" in unseen[0].message
    # `out.sum()` is one number of the step's output kept for the log: AD102's (logged_stats.py)
    seen = autodetach.check_code(textwrap.dedent(src.format(value="out.sum()")), select=["AD101", "AD102"])
    assert [(f.code, f.line, f.fix) for f in seen] == [("AD102", 14, "safe")]


UNPACK = """
import torch

class Agent:
    def __init__(self, config):
        self.batch_size = config.batch_size
        self.policy = torch.nn.Linear(3, 3)

    def unpack(self, batch):
        states = {init}
        for el in batch:
            if bool(el[1].item()):
                states[0] = tuple(el[0].tolist())
        return states, len(batch)
"""


def _elems(src, fname):
    import libcst as cst

    from autodetach.context import FileContext

    module = cst.parse_module(textwrap.dedent(src))
    analysis = FileContext(module, "<string>", module.code).analysis
    fn = next(m for m in analysis.names.methods.values() if m.name.value == fname)
    return analysis.returns_elems(fn)


def test_repeated_literal_holds_only_its_elements():
    assert _elems(UNPACK.format(init="[None] * self.batch_size"), "unpack") == [False, False]
    # a tensor repeated in a list keeps its graph
    assert _elems(UNPACK.format(init="[self.policy(batch[0][0])] * self.batch_size"), "unpack") == [True, False]


STEP = """
import torch

class Trainer:
    def __init__(self, ae, dis, data, params):
        self.ae, self.dis, self.data, self.params = ae, dis, data, params
        self.opt = torch.optim.Adam(ae.parameters())

    def step(self):
        params = self.params
        x = self.data.batch()
        loss = (self.ae(x) - x).pow(2).mean()
        if params.a + params.b > 0:
            flipped = self.ae.decode(x)
        if params.a:
            loss = loss + self.dis(flipped).mean()
        {store}
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
"""


def test_local_bound_in_a_branch_does_not_outlive_a_step_method_call():
    assert autodetach.check_code(textwrap.dedent(STEP.format(store="")), select=["AD1"]) == []
    # kept on `self`, the same value does reach the next call
    stored = STEP.format(store="self.last = flipped").replace("self.dis(flipped)", "self.dis(self.last)")
    assert autodetach.check_code(textwrap.dedent(stored), select=["AD1"]) != []


PENALTY = """
import torch

net_g = torch.nn.Linear(4, 6)
net_d = torch.nn.Linear(6, 1)
opt_d = torch.optim.SGD(net_d.parameters(), lr=0.1)
for it in range(3):
    fake = net_g(torch.randn(8, 4))
    loss_d = net_d(fake).mean()
    opt_d.zero_grad()
    loss_d.backward()
    interp = fake.requires_grad_(True) * 0.5
    grad = torch.autograd.grad(net_d(interp).sum(), {inputs}, create_graph=True)[0]
    penalty = grad.pow(2).mean()
    {penalty}
    opt_d.step()
"""


def test_autograd_grad_runs_only_the_graph_built_on_its_inputs():
    # `grad` stops at `interp`: the freed graph of `fake` below it is not run
    src = PENALTY.format(inputs="interp", penalty="")
    assert [f.code for f in autodetach.check_code(textwrap.dedent(src), select=["AD1"])] == []
    src = PENALTY.format(inputs="net_d.weight", penalty="")
    assert [f.code for f in autodetach.check_code(textwrap.dedent(src), select=["AD1"])] == []
    # toward `net_g`'s weight it runs through `fake`'s freed graph (torch raises), named or aliased
    for inputs in ("net_g.weight", "[net_g.weight]", "list(net_g.parameters())"):
        src = PENALTY.format(inputs=inputs, penalty="")
        assert [f.code for f in autodetach.check_code(textwrap.dedent(src), select=["AD1"])] != [], inputs
    src = PENALTY.format(inputs="p", penalty="").replace("    interp =", "    p = net_g.weight\n    interp =")
    assert [f.code for f in autodetach.check_code(textwrap.dedent(src), select=["AD1"])] != []


EVAL_MODEL = """
import numpy as np
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x)

    def evaluate(self, batches, criterion):
        losses = []
        for x in batches:
            losses.append(criterion(self.forward(x), x).data[0])
        return {ret}
"""

EVAL_LOOP = """
import torch
from models import Net

net = Net()
crit = torch.nn.MSELoss()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
history = []
for epoch in range(3):
    loss = crit(net(torch.randn(2, 4)), torch.randn(2, 4))
    opt.zero_grad()
    loss.backward()
    opt.step()
    val_loss = net.evaluate([torch.randn(2, 4)], crit)
    history.append(val_loss)
"""


def test_method_summary_says_whether_the_module_graph_reaches_the_result():
    assert summarize(textwrap.dedent(EVAL_MODEL.format(ret="np.sum(losses)")))["Net.evaluate"].self_flow == "cut"
    assert summarize(textwrap.dedent(EVAL_MODEL.format(ret="self.forward(x).sum()")))["Net.evaluate"].self_flow \
        == "graph"


def test_evaluate_method_returning_numbers_is_not_kept_graph(tmp_path):
    files = {"models.py": EVAL_MODEL.format(ret="np.sum(losses)"), "train.py": EVAL_LOOP}
    assert _findings(tmp_path, files) == []
    files["models.py"] = EVAL_MODEL.format(ret="self.forward(x).pow(2).mean()")
    assert [code for code, _, _ in _findings(tmp_path, files)] != []


def test_container_filled_by_index_holds_what_is_stored():
    src = """
import torch


def decode(h, steps):
    preds = torch.zeros(steps, 4).to(device)
    for t in range(steps):
        preds[t] = h.detach() * 0 + h
    return preds, steps
"""
    assert summarize(textwrap.dedent(src))["decode"].elem_flow[0][0] != "cut"
