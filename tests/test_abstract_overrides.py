"""A base class's loop that calls a method its subclasses define (`forward_step`
raises NotImplementedError in the base): the file's one override is read for what
the call returns, and the finding says so (verl's FSDP engine shape). A value
unpacked from a tuple whose element the method builds as a dict gets no `.detach()`."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

ENGINE = """
import torch
from torch import nn


class Engine:
    def __init__(self):
        self.module = nn.Linear(4, 3)

    def forward_backward_batch(self, micro_batches):
        outputs = []
        for mb in micro_batches:
            loss, meta = self.forward_step(mb)
            loss.backward()
            outputs.append(meta)
        return outputs

    def forward_step(self, mb):
        raise NotImplementedError


class LMEngine(Engine):
    def forward_step(self, mb):
        logits = self.module(mb)
        loss = logits.pow(2).mean()
        return loss, {{"model_output": {out}, "loss": loss.item()}}
{extra}"""

SECOND = """

class ValueEngine(Engine):
    def forward_step(self, mb):
        values = self.module(mb).sum(-1)
        loss = values.pow(2).mean()
        return loss, {"values": values.detach()}
"""

CONCRETE = """
import torch
from torch import nn


class Engine:
    def __init__(self):
        self.module = nn.Linear(4, 3)

    def forward_backward_batch(self, micro_batches):
        outputs = []
        for mb in micro_batches:
            loss, meta = self.forward_step(mb)
            loss.backward()
            outputs.append(meta)
        return outputs

    def forward_step(self, mb):
        logits = self.module(mb)
        loss = logits.pow(2).mean()
        output = {"model_output": logits, "loss": loss.item()}
        return loss, output
"""


def _found(tmp_path, text):
    path = tmp_path / "engine.py"
    path.write_text(textwrap.dedent(text))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options(unsafe=True))
    return [f for f in findings if f.code in ("AD101", "AD102")]


def test_the_one_override_is_read_for_the_dict_the_loop_appends(tmp_path):
    found = _found(tmp_path, ENGINE.format(out="logits", extra=""))
    assert [(f.code, f.line, f.fix) for f in found] == [("AD101", 15, "none")]
    assert "`LMEngine.forward_step`, its one override in this file" in found[0].message


def test_an_override_that_detaches_its_output_is_not_reported(tmp_path):
    assert _found(tmp_path, ENGINE.format(out="logits.detach()", extra="")) == []


def test_two_overrides_leave_the_abstract_call_unread(tmp_path):
    assert _found(tmp_path, ENGINE.format(out="logits", extra=SECOND)) == []


def test_a_dict_unpacked_from_a_methods_tuple_gets_no_detach(tmp_path):
    # `meta.detach()` was offered as a safe fix: a dict has no `.detach()`
    found = _found(tmp_path, CONCRETE)
    assert [(f.code, f.line, f.fix) for f in found] == [("AD101", 15, "none")]
