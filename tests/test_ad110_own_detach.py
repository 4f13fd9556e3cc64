"""AD110's assignment fix (`state = state.detach()`) is unsafe where a class of the
project defines its own `detach()`: OpenNMT's DecoderState detaches its tensors in
place and returns None, so the bare statement already works and the assignment
would bind None. Where that method returns nothing and the name holds only None or
what calls of code not torch's return (`out, state = model(x, state)`), nothing
shows it is a tensor: not reported."""
from pathlib import Path

from autodetach.engine import Options, check_source
from autodetach.findings import SAFE, UNSAFE
from autodetach.registry import all_rules

MODELS = '''
import torch.nn as nn


class DecoderState:
    def __init__(self, hidden):
        self.hidden = hidden

    def detach(self):
        self.hidden = self.hidden.detach()


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(3, 4)

    def forward(self, x, state):
        y, hidden = self.rnn(x, None if state is None else state.hidden)
        return y, DecoderState(hidden)
'''

TRAIN = '''
import torch

from models import Decoder


def train(model, optimizer, chunks):
    state = None
    for x, y in chunks:
        out, state = model(x, state)
        loss = (out - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        state.detach()
'''


def _ad110(path: Path):
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD110"]


def test_an_object_out_of_a_call_with_the_projects_in_place_detach_is_not_reported(tmp_path):
    # OpenNMT's Trainer (12-10 negative): `state` is None or comes out of `model(...)`, and the
    # project's `DecoderState.detach()` detaches in place and returns nothing: the statement is that method
    (tmp_path / "models.py").write_text(MODELS)
    (tmp_path / "train.py").write_text(TRAIN)
    assert _ad110(tmp_path / "train.py") == []


def test_a_class_of_the_same_file_counts_too(tmp_path):
    (tmp_path / "train.py").write_text(MODELS + TRAIN.replace("from models import Decoder\n", ""))
    assert _ad110(tmp_path / "train.py") == []


def test_a_detach_that_returns_a_value_keeps_the_finding_unsafe(tmp_path):
    (tmp_path / "models.py").write_text(MODELS.replace("self.hidden = self.hidden.detach()",
                                                       "return DecoderState(self.hidden.detach())"))
    (tmp_path / "train.py").write_text(TRAIN)
    found = _ad110(tmp_path / "train.py")
    assert len(found) == 1 and found[0].fix == UNSAFE, [(f.fix, f.message) for f in found]
    assert "`DecoderState` (models.py) defines its own `detach()`" in found[0].message


def test_a_name_bound_to_a_torch_tensor_keeps_the_finding_unsafe(tmp_path):
    (tmp_path / "models.py").write_text(MODELS)
    (tmp_path / "train.py").write_text(TRAIN.replace("    state = None\n", "    state = torch.zeros(1, 2, 4)\n"))
    found = _ad110(tmp_path / "train.py")
    assert len(found) == 1 and found[0].fix == UNSAFE, [(f.fix, f.message) for f in found]
    assert "`DecoderState` (models.py) defines its own `detach()`" in found[0].message


def test_without_such_a_class_the_fix_stays_safe(tmp_path):
    (tmp_path / "models.py").write_text(MODELS.replace("def detach(self)", "def cut(self)"))
    (tmp_path / "train.py").write_text(TRAIN)
    found = _ad110(tmp_path / "train.py")
    assert len(found) == 1 and found[0].fix == SAFE, [(f.fix, f.message) for f in found]
