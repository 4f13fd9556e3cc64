"""Objects that keep what they are handed across calls: a join onto `self`
state (`self.seen = torch.cat([self.seen, v])`), a ring or replay buffer
slot chosen by `self` state, a `__call__` that keeps its argument, and an
object of a class of the file handed to the training function."""
import textwrap

import libcst as cst

from autodetach.analysis.names import build_names
from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.imports import ImportTable
from autodetach.registry import all_rules


def _found(src: str):
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    found, _, _ = check_source(textwrap.dedent(src), "train.py", rules, Options())
    return [(f.code, f.line) for f in found]


def _accum(body: str, params: str = "self, val"):
    head = f"import torch\n\n\nclass Keeper:\n    def keep({params}):\n"
    src = head + textwrap.indent(textwrap.dedent(body), " " * 8)
    return summarize(src)["Keeper.keep"].accum


def test_a_join_onto_self_state_keeps_the_argument():
    assert _accum("self.seen = torch.cat([self.seen, val])\n")
    assert _accum("self.seen = torch.stack((self.seen, val * 2))\n")
    assert not _accum("self.seen = torch.cat([self.seen, val.detach()])\n")
    assert not _accum("self.seen = torch.cat([self.other, val])\n")  # not a join onto itself: a rebinding


def test_a_slot_chosen_by_self_state_keeps_the_argument():
    assert _accum("self.memory[self.position] = val\nself.position = (self.position + 1) % 8\n")
    assert _accum("self.cache[len(self.cache)] = val\n")
    assert not _accum("self.memory[self.position] = val.item()\n")


def test_a_slot_of_a_numpy_array_copies_numbers():
    # spinningup's replay buffers: `self.obs_buf = np.zeros(...)`, then `self.obs_buf[self.ptr] = obs`
    src = ("import numpy as np\n\n\nclass Keeper:\n    def __init__(self, n):\n"
           "        self.buf = np.zeros((n, 3), dtype=np.float32)\n        self.ptr = 0\n\n"
           "    def keep(self, val):\n        self.buf[self.ptr] = val\n        self.ptr = (self.ptr + 1) % 8\n")
    assert not summarize(src)["Keeper.keep"].accum
    assert summarize(src.replace("np.zeros((n, 3), dtype=np.float32)", "[None] * n"))["Keeper.keep"].accum


def test_a_slot_a_constant_or_a_parameter_picks_is_not_taken():
    # each call may rewrite the same slot: one graph at most, not a store that grows
    assert not _accum('self.stats["loss"] = val\n')
    assert not _accum("self.latest[key] = val\n", params="self, key, val")


LOOP = """
import torch
from torch import nn


class PredictionLog:
    def __init__(self):
        self.seen = torch.zeros(0, 2)

    {deco}def __call__(self, probs):
        self.seen = torch.cat([self.seen, probs])


def train(model, optimizer, batches, log):
    for x, y in batches:
        out = model(x)
        loss = (out - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        log(out.softmax(dim=1))


def main(model, batches):
    train(model, torch.optim.SGD(model.parameters(), lr=0.1), batches, {arg})
"""


def test_a_called_object_that_keeps_its_argument_is_reported():
    assert _found(LOOP.format(deco="", arg="PredictionLog()")) == [("AD102", 21)]


def test_a_called_object_under_no_grad_keeps_no_graph():
    assert _found(LOOP.format(deco="@torch.no_grad()\n    ", arg="PredictionLog()")) == []


def test_a_parameter_is_an_object_of_the_class_every_call_passes():
    src = LOOP.format(deco="", arg="tracker") + "\n\ntracker = PredictionLog()\n"
    module = cst.parse_module(src)
    names = build_names(module, ImportTable.from_module(module))
    assert names.instances.get("log") == "PredictionLog"
    assert "every call of `train()`" in names.inferred["log"]


def test_a_module_class_passed_is_left_to_the_roles():
    src = "from torch import nn\n\n\nclass Net(nn.Module):\n    pass\n\n\n" + \
        "def fit(net):\n    return net\n\n\nfit(Net())\n"
    module = cst.parse_module(src)
    assert "net" not in build_names(module, ImportTable.from_module(module)).instances
