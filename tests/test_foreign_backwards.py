"""A method of another file's class that backwards what it is handed
(analysis.foreign_backwards), and a step that leaves alone what no backward
since `zero_grad()` reached (analysis.stale._left_alone)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

BALANCER = """
import torch
from torch.optim.optimizer import Optimizer


class Balancer(Optimizer):
    def __init__(self, params):
        super().__init__(params, {{}})

    @torch.no_grad()
    def step(self, losses):
{body}

    def _balance(self, losses):
        for loss in losses:
            loss.backward(retain_graph=True)
"""

TRAIN = """
import torch
import torch.nn as nn

from balancer import Balancer

trunk, head = nn.Linear(4, 4), nn.Linear(4, 1)
balancer = Balancer(trunk.parameters())
opt_head = torch.optim.Adam(head.parameters())
opt_trunk = torch.optim.Adam(trunk.parameters())
for x in [torch.randn(2, 4)] * 3:
    out = head(torch.tanh(trunk(x)))
    loss_a, loss_b = out.mean(), out.pow(2).mean()
    (loss_a + loss_b).backward(retain_graph=True)
{order}
    opt_trunk.step()
"""

STEP_FIRST = "    opt_head.step()\n    balancer.step([loss_a, loss_b])"
STEP_LAST = "    balancer.step([loss_a, loss_b])\n    opt_head.step()"


def _found(tmp_path, body, order, code):
    (tmp_path / "balancer.py").write_text(textwrap.dedent(BALANCER.format(body=body)))
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(TRAIN.format(order=order)))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == code]


def test_a_method_that_backwards_its_argument(tmp_path):
    body = "        for loss in losses:\n            loss.backward(retain_graph=True)"
    found = _found(tmp_path, body, STEP_FIRST, "AD108")
    assert [f.line for f in found] == [16]
    assert "`balancer.step()` runs `.backward()` on what it is handed (read from balancer.py)" in found[0].message
    assert found[0].fix == "none"


def test_through_one_more_method_of_its_class(tmp_path):
    found = _found(tmp_path, "        self._balance(losses)", STEP_FIRST, "AD108")
    assert [f.line for f in found] == [16]


def test_backwarded_before_the_step(tmp_path):
    assert _found(tmp_path, "        self._balance(losses)", STEP_LAST, "AD108") == []


def test_the_retain_before_it_is_needed(tmp_path):
    # the balancer walks the graph again: dropping the retain would break it
    assert _found(tmp_path, "        self._balance(losses)", STEP_LAST, "AD104") == []


def test_a_method_that_backwards_nothing(tmp_path):
    assert _found(tmp_path, "        return losses", STEP_FIRST, "AD108") == []


GAN = """
import itertools

import torch
import torch.nn as nn
import torch.nn.functional as F

G, D = nn.Linear(4, 6), nn.Linear(6, 1)
opt = {opt}(itertools.chain(G.parameters(), D.parameters()), lr=0.1)
for x, z in [(torch.randn(2, 6), torch.randn(2, 4))] * 3:
    fake = G(z)
    d_loss = F.softplus(-D(x)).mean() + F.softplus(D({d_input})).mean()
    opt.zero_grad({clear})
    d_loss.backward()
    opt.step()
    g_loss = F.softplus(-D(fake)).mean()
    opt.zero_grad({clear})
    g_loss.backward()
    opt.step()
"""


def _gan(opt="torch.optim.Adam", d_input="fake.detach()", clear=""):
    code = textwrap.dedent(GAN.format(opt=opt, d_input=d_input, clear=clear))
    findings, _, _ = check_source(code, "gan.py", all_rules(), Options())
    return [f.line for f in findings if f.code == "AD108"]


def test_one_optimizer_d_step_on_a_detached_fake():
    # G's gradients are None at the D step: torch.optim leaves G's weights alone
    assert _gan() == []
    assert _gan(clear="set_to_none=True") == []


def test_zeros_kept_are_applied():
    assert _gan(clear="set_to_none=False") == [18]


def test_the_d_step_reaches_the_generator():
    # without the detach the D backward fills G's gradients, and the step moves G
    assert 18 in _gan(d_input="fake")


def test_an_optimizer_of_unknown_code():
    # another optimizer may update a parameter without a gradient (weight decay on all)
    code = "from myoptim import Ranger\n" + textwrap.dedent(GAN.format(opt="Ranger", d_input="fake.detach()",
                                                                       clear=""))
    findings, _, _ = check_source(code, "gan.py", all_rules(), Options())
    assert [f.line for f in findings if f.code == "AD108"] == [19]
