"""OwnSummaries: a file's summary table computed as asked gives what
summarize gives, whatever the order of the lookups."""
import itertools
import os

from autodetach.analysis.summaries import CALLS, IMPORTS, OwnSummaries, summarize

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Two classes of one name, a property setter (a method name twice), methods
# that hand their arguments to each other (shared flows), a recurrent state.
SOURCE = '''
from .meters import Meter
import torch.nn as nn

def f(x):
    return x.detach()

class Meter:
    def update(self, v):
        self.total += v
    def add(self, v):
        return self.update(v)

class Net(nn.Module):
    def __init__(self):
        self.gru = nn.GRU(4, 4)
    def forward(self, x):
        out, self.h = self.gru(x, self.h)
        return self.step(out)
    def step(self, v):
        return self.forward(v)
    @property
    def size(self):
        return 1
    @size.setter
    def size(self, v):
        self.n = v

class Net:
    def update(self, v):
        self.total += v

def train(loader, meter):
    for x in loader:
        loss = model(x)
        loss.backward()
        meter.add(loss)
'''


def _same(a, b) -> bool:
    return {k: repr(v) for k, v in a.items()} == {k: repr(v) for k, v in b.items()} and list(a) == list(b)


def test_lookups_in_any_order_match_the_whole_table():
    whole = summarize(SOURCE)
    keys = [k for k in whole if "." in k and not k.startswith(" ")]
    assert "Net.forward" in keys and "Net.update" in keys and "Meter.add" in keys
    for order in itertools.permutations(keys[:3] + ["Net.forward"]):
        lazy = OwnSummaries(SOURCE)
        for k in order:
            assert repr(lazy[k]) == repr(whole[k]), k
        assert _same(dict(lazy.items()), whole)
    assert whole["Net.forward"].state  # set at the end of the first Net


def test_absent_keys_and_the_other_tables():
    lazy = OwnSummaries(SOURCE)
    assert lazy.get("Net.cuda") is None and lazy.get("Nope.x") is None
    assert lazy._done == 0  # nothing summarised for a method no class defines
    assert lazy[IMPORTS] == summarize(SOURCE)[IMPORTS]
    assert repr(lazy[CALLS]) == repr(summarize(SOURCE)[CALLS]) and "f" in lazy
    assert OwnSummaries("def (:\n").get("A.b") is None and summarize("def (:\n") == {}


def test_corpus_files():
    for sub in ("migration", "AD106", "AD102"):
        folder = os.path.join(ROOT, "corpus", sub)
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".py"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as fh:
                text = fh.read()
            whole = summarize(text)
            lazy = OwnSummaries(text)
            for k in reversed([k for k in whole if "." in k and not k.startswith(" ")]):
                assert repr(lazy[k]) == repr(whole[k]), (name, k)
            assert _same(dict(lazy.items()), whole), name


def test_class_keys_of_class_and_self_targets():
    whole = summarize(SOURCE)
    lazy = OwnSummaries(SOURCE)
    assert lazy.class_keys() == [k for k in whole if "." in k and not k.startswith(" ")]
    assert lazy._done == 0  # listing the keys summarises nothing
    meter = lazy.of_class("Meter")
    assert list(meter) == ["Meter.update", "Meter.add"] and lazy._done < len(lazy._steps)  # the Nets wait
    assert _same(meter, {k: v for k, v in whole.items() if k.startswith("Meter.")})
    assert _same(lazy.of_class("Net"), {k: v for k, v in whole.items() if k.startswith("Net.")})
    assert lazy.self_targets("Net") == {"self.h", "self.n"}  # not __init__'s self.gru
    for cls in ("Meter", "Net"):
        stored = {k for name, s in whole.items() if name.startswith(cls + ".") for k in s.stores_graph}
        assert stored <= lazy.self_targets(cls)
    assert OwnSummaries("def (:\n").class_keys() == [] and OwnSummaries("def (:\n").self_targets("A") == set()
