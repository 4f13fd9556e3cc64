"""A helper of another file that steps optimizers in turn, each after the
backward of its own loss (analysis/multi_steps.py, Summary.multi_steps):
expanded at its call, so AD108 sees the step between the two backwards."""
import os
import textwrap

from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

BASE = """
class Base:
    @staticmethod
    def optimize_multi(opts, losses):
        for i, (opt, loss) in enumerate(zip(opts, losses)):
            opt.zero_grad()
            loss.backward(retain_graph={retain})
            opt.step()
"""

TRAIN = """
import torch
from torch import nn
from base import Base


class Trainer(Base):
    def __init__(self):
        self.body = nn.Linear(4, 4)
        self.head = nn.Linear(4, 1)
        body_params = list(self.body.parameters())
        head_params = list(self.head.parameters())
        self.opts = [torch.optim.SGD(body_params, lr=0.1), torch.optim.SGD(head_params, lr=0.1)]

    def step(self, x):
        {losses}
        self.optimize_multi(self.opts, [body_loss, head_loss])

    def fit(self, batches):
        for x in batches:
            self.step(x)
"""


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    os.utime(path, ns=(1, 1))


def _ad108(tmp_path, losses, retain="i < len(opts) - 1"):
    _write(tmp_path / "base.py", BASE.replace("{retain}", retain))
    _write(tmp_path / "train.py", TRAIN.replace("{losses}", losses))
    text = (tmp_path / "train.py").read_text()
    found, _, _ = check_source(text, str(tmp_path / "train.py"), all_rules(), Options())
    return [(f.line, f.message) for f in found if f.code == "AD108"]


def test_summary_pairs_the_lists_and_reads_the_retain():
    table = summarize(textwrap.dedent(BASE.replace("{retain}", "True if i < len(opts) - 1 else False")))
    assert table["Base.optimize_multi"].multi_steps == (("opts", "losses", "last", True),)
    table = summarize(textwrap.dedent(BASE.replace("{retain}", "True")))
    assert table["Base.optimize_multi"].multi_steps == (("opts", "losses", True, True),)
    # backward after the step: not this shape
    swapped = BASE.replace("{retain}", "True").replace("            loss.backward(retain_graph=True)\n", "") \
        .replace("opt.step()", "opt.step()\n            loss.backward()")
    assert summarize(textwrap.dedent(swapped))["Base.optimize_multi"].multi_steps == ()


def test_second_loss_through_what_the_first_step_updated_is_reported(tmp_path):
    found = _ad108(tmp_path, "h = self.body(x)\n        body_loss = h.pow(2).mean()\n"
                             "        head_loss = self.head(h).mean()")
    assert [line for line, _ in found] == [19]
    assert "`head_loss`" in found[0][1] and "`optimize_multi` (read from another file)" in found[0][1]


def test_losses_from_separate_graphs_are_left_alone(tmp_path):
    assert _ad108(tmp_path, "body_loss = self.body(x).pow(2).mean()\n"
                            "        head_loss = self.head(x.detach()).mean()") == []
