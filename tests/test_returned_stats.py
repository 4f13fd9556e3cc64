"""analysis.returned_stats: a dict of a loss's parts returned beside their sum for the
log, whose callers in a sibling package backward the sum and feed each entry to a
project meter (the tracking trainers' actor / trainer / AverageMeter layout)."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

ACTOR = """
import torch.nn.functional as F


class BaseActor:
    def __init__(self, net):
        self.net = net


class BoxActor(BaseActor):
    def __call__(self, data):
        loss, status = self.compute_losses(self.net(data["x"]), data["y"])
        return loss, status

    def compute_losses(self, pred, gt):
        loss_dict = {"l1": F.l1_loss(pred, gt), "mse": F.mse_loss(pred, gt)}
        losses = SUM
        status = STATUS
        CONVERT
        return losses, RETURNED
"""

TRAINER = """
from ..admin.meters import AverageMeter


class Trainer:
    def __init__(self, actor, optimizer):
        self.ATTR = actor
        self.optimizer = optimizer
        self.stats = {}

    def cycle(self, loader):
        for data in loader:
            loss, stats = self.ATTR(data)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self._update_stats(stats, 8)

    def _update_stats(self, new_stats, n):
        for name, val in new_stats.items():
            if name not in self.stats:
                self.stats[name] = AverageMeter()
            self.stats[name].UPDATE
"""

METER = """
class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n
"""


def _check(tmp_path, summed="sum(loss_dict.values())", status="loss_dict.copy()", convert="", attr="actor",
           update="update(val, n)", returned="status"):
    root = tmp_path / "lib"
    for sub in ("", "actors", "trainers", "admin"):
        (root / sub).mkdir(exist_ok=True)
        (root / sub / "__init__.py").write_text("")
    text = textwrap.dedent(ACTOR.replace("SUM", summed).replace("STATUS", status).replace("CONVERT", convert)
                           .replace("RETURNED", returned))
    (root / "actors" / "box.py").write_text(text)
    (root / "trainers" / "base.py").write_text(textwrap.dedent(
        TRAINER.replace("ATTR", attr).replace("UPDATE", update)))
    (root / "admin" / "meters.py").write_text(textwrap.dedent(METER))
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    found, _, _ = check_source(text, str(root / "actors" / "box.py"), rules, Options())
    return found


def test_the_returned_copy_is_reported_without_a_fix(tmp_path):
    found = _check(tmp_path)
    assert [(f.code, f.line) for f in found] == [("AD102", 18)]
    msg = found[0].message
    assert "base.py (line 13)" in msg and "`AverageMeter.update`" in msg and "inferred" in msg
    assert found[0].fix == "none"


def test_the_parts_dict_returned_itself(tmp_path):
    found = _check(tmp_path, status="loss_dict")
    assert [f.line for f in found] == [18]
    found = _check(tmp_path, status="None", returned="loss_dict")
    assert [(f.line, f.column) for f in found] == [(20, 24)]


@pytest.mark.parametrize("summed", [
    "sum(loss_dict[k] * 2.0 for k in loss_dict.keys())",
    "sum(loss_dict[k] for k in ('l1', 'mse'))",
])
def test_other_sums_of_the_parts(tmp_path, summed):
    assert [f.line for f in _check(tmp_path, summed=summed)] == [18]


@pytest.mark.parametrize("kw", [
    {"status": "{k: v.item() for k, v in loss_dict.items()}"},  # numbers
    {"convert": "for k in status:\n            status[k] = status[k].item()"},  # converted in place
    {"summed": "loss_dict['l1'] + loss_dict['mse']"},  # not a sum(...) over the dict: not followed
    {"attr": "model"},  # `self.model(data)`: nothing ties it to BoxActor
    {"update": "append(val)"},  # not a meter's update
])
def test_silent(tmp_path, kw):
    assert _check(tmp_path, **kw) == []


def test_a_caller_that_does_not_backward_the_loss(tmp_path):
    root = tmp_path
    found = _check(root)
    assert found
    trainer = root / "lib" / "trainers" / "base.py"
    trainer.write_text(trainer.read_text().replace("loss.backward()", "print(loss)"))
    text = (root / "lib" / "actors" / "box.py").read_text()
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    assert check_source(text, str(root / "lib" / "actors" / "box.py"), rules, Options())[0] == []
