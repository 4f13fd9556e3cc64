"""A meter whose update adds what it is given through an imported function
out of sight (`hvd.allreduce(val.cpu())`): summaries record the store as a
guess (Summary.guessed), and AD102 names the inference in its unsafe fix."""
import ast
import textwrap

from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

METER = """
import torch
import horovod.torch as hvd

class Metric:
    def __init__(self):
        self.sum = torch.tensor(0.)

    def update(self, val):
        self.sum += hvd.allreduce({arg})
"""

LOOP = """
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
meter = Metric()
for x in [torch.randn(2, 4) for _ in range(3)]:
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    meter.update(loss)
"""


def _summary(arg: str):
    table = summarize(ast.parse(textwrap.dedent(METER.replace("{arg}", arg))))
    return table["Metric.update"]


def test_a_store_through_an_unseen_library_call_is_a_guess():
    s = _summary("val.cpu()")
    assert [(pos, line) for pos, line, _ in s.accum] == [(0, 10)]
    assert s.guessed == ((10, "hvd.allreduce"),)


def test_a_cut_before_the_call_or_a_scalar_helper_adds_nothing():
    assert _summary("val.detach().cpu()").accum == ()
    assert _summary("val.item()").accum == ()


def test_ad102_reports_the_caller_with_an_unsafe_fix_naming_the_guess():
    rules = [r for r in all_rules() if r.code == "AD102"]
    src = textwrap.dedent(METER.replace("{arg}", "val.cpu()")) + textwrap.dedent(LOOP)
    found, _, _ = check_source(src, "train.py", rules, Options())
    assert [f.line for f in found] == [20]
    assert "`hvd.allreduce(...)`, out of sight" in found[0].message
    assert found[0].fix == "unsafe"
