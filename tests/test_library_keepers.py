"""AD102 on a loss kept by an object of a class the analysis cannot read
(`run_loss = CumulativeAverage()` of an installed library): that its `append`
keeps the graph is taken from the name, so the fix is unsafe and the message
says so (factories.library_keeper_note). A standard-library container and a
project class whose method is read stay as they were."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

SRC = """
import torch
import torch.nn.functional as F
IMPORT


def train_epoch(model, optimizer, loader):
    run_loss = MAKE
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        run_loss.append(loss)
    return run_loss
"""


def _ad102(tmp_path, imp, make, files=()):
    for name, text in files:
        (tmp_path / name).write_text(textwrap.dedent(text))
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SRC.replace("IMPORT", imp).replace("MAKE", make)))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD102"]


def test_library_object_append_is_inferred(tmp_path):
    found = _ad102(tmp_path, "from monai.metrics import CumulativeAverage", "CumulativeAverage()")
    assert [(f.line, f.fix) for f in found] == [(14, "unsafe")]
    assert "`monai.metrics.CumulativeAverage`, whose `append` is not read" in found[0].message


def test_stdlib_deque_is_not_a_guess(tmp_path):
    found = _ad102(tmp_path, "from collections import deque", "deque(maxlen=100)")
    assert all("is not read" not in f.message for f in found)


def test_project_class_read_from_its_code(tmp_path):
    avg = """
    class RunningAverage:
        def __init__(self):
            self.values = []

        def append(self, value):
            self.values.append(value)
    """
    found = _ad102(tmp_path, "from avg import RunningAverage", "RunningAverage()", [("avg.py", avg)])
    assert found and all("is not read" not in f.message for f in found)
