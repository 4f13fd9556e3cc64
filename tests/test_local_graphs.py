"""AD104's last-iteration shape when only the function's locals hold the
graph (analysis/local_graphs.py): it dies when the function returns, so a
retain on the loop's last iteration keeps nothing a step."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

METHOD = """
import torch
from torch import nn


class Agent:
    def __init__(self, n):
        self.net = nn.Linear(4, 3)
        self.n = n
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.kept = []

    def update(self, s):
{body}
"""

PLAIN = """
        out = self.net(s)
        scale = out[:, 0].detach()
        logp = torch.log_softmax(out, -1)[:, 0]
        grads = []
        for i in range(self.n):
            self.opt.zero_grad()
            logp[i].backward(retain_graph=True)
            grads.append(self.net.weight.grad.clone() * scale[i])
        self.opt.zero_grad()
        self.net.weight.grad = torch.stack(grads).mean(0)
        self.opt.step()
{tail}
"""


def _ad104(body):
    src = METHOD.format(body=textwrap.indent(textwrap.dedent(body), "        ").rstrip())
    findings, _, _ = check_source(src, "case.py", all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def _plain(tail=""):
    return _ad104(PLAIN.format(tail=textwrap.indent(textwrap.dedent(tail), "        ")))


def test_locals_only_not_reported():
    assert _plain() == []


def test_cut_and_item_reads_keep_nothing():
    assert _plain("print(out.sum().item(), logp.detach().mean())\nreturn scale.sum()") == []


def test_returned_holder_left_to_the_callers():
    # the graph escapes: a caller may backward it again, so the retain is kept (retained.py)
    assert _plain("return logp") == []


def test_holder_stored_on_self_reported():
    assert len(_plain("self.kept.append(logp)")) == 1


def test_holder_copied_then_handed_to_a_call_reported():
    assert len(_plain("last = logp[-1]\nself.log(last)")) == 1


def test_outer_loop_in_the_function_reported():
    body = """
    for x in s:
        logp = torch.log_softmax(self.net(x), -1)[:, 0]
        for i in range(self.n):
            self.opt.zero_grad()
            logp[i].backward(retain_graph=True)
        self.opt.step()
    """
    assert len(_ad104(body)) == 1


def test_generator_reported():
    assert len(_plain("yield scale")) == 1
