"""OwnSummaries: a file's summary table computed as asked gives what
summarize gives, whatever the order of the lookups."""
import ast
import itertools
import os

from autodetach.analysis import project
from autodetach.analysis.summaries import (
    CALLS, IMPORTS, OwnSummaries, _grad, _quiet_nodes, _rebound, methods_named, summarize)

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


def test_functions_and_tables_summarise_no_class():
    lazy = OwnSummaries(SOURCE)
    whole = summarize(SOURCE)
    assert repr(lazy["f"]) == repr(whole["f"]) and lazy.get("g") is None
    assert lazy[IMPORTS] == whole[IMPORTS] and repr(lazy[CALLS]) == repr(whole[CALLS])
    assert lazy._done == 0  # a function, the re-exports and the call table run no class step


def test_methods_named():
    whole = summarize(SOURCE)
    lazy = OwnSummaries(SOURCE)
    got = methods_named(lazy, "update")
    assert [k for k, _ in got] == ["Meter.update", "Net.update"]
    assert [repr(v) for _, v in got] == [repr(whole[k]) for k, _ in got]
    assert [k for k, _ in methods_named(OwnSummaries(SOURCE), "add")] == ["Meter.add"]
    assert [k for k, _ in methods_named(whole, "update")] == ["Meter.update", "Net.update"]  # a plain table
    assert methods_named({}, "update") == []


def _quiet_reference(fn, off):
    """_quiet_nodes as first written: every node walked."""
    out, stack = set(), [(n, off) for n in fn.body]
    while stack:
        n, quiet = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(n, (ast.With, ast.AsyncWith)):
            for item in n.items:
                mode = _grad(item.context_expr)
                quiet = mode > 0 if mode else quiet
        if quiet:
            out.add(id(n))
        stack.extend((child, quiet) for child in ast.iter_child_nodes(n))
    return out


def _rebound_reference(func, params):
    """_rebound as first written: every statement walked."""
    out, seen = {}, set()
    for stmt in func.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            if name in params and name not in seen and name not in out:
                out[name] = {id(n) for n in ast.walk(stmt.value) if isinstance(n, ast.Name) and n.id == name}
        seen.update(n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    return out


QUIET = """
import torch
def f(x, y):
    y = y.detach()
    if x:
        try:
            pass
        except ValueError:
            with torch.no_grad():
                a = [g(v) for v in x]
    match x:
        case 1:
            with torch.no_grad():
                with torch.enable_grad():
                    b = x * 2
                c = lambda: x + 1
    while x:
        with torch.no_grad(), open("f"):
            x = x - 1
    return a, b, c
"""


def test_quiet_nodes_and_rebound_walk_less_but_answer_the_same():
    texts = [QUIET]
    for sub in ("AD101", "AD102", "AD106", "AD109", "migration"):
        folder = os.path.join(ROOT, "corpus", sub)
        texts += [open(os.path.join(folder, n), encoding="utf-8").read()
                  for n in sorted(os.listdir(folder)) if n.endswith(".py")]
    quiet = 0
    for text in texts:
        for fn in ast.walk(ast.parse(text)):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                params = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
                assert _rebound(fn, params) == _rebound_reference(fn, params)
                for off in (False, True):
                    got = _quiet_nodes(fn, off)
                    assert got == _quiet_reference(fn, off)
                    quiet += bool(got) and not off
    assert quiet >= 3  # `with torch.no_grad()` inside if/except, match and while bodies
    f = ast.parse(QUIET).body[1]
    assert _rebound(f, {"x", "y"}) == _rebound_reference(f, {"x", "y"}) != {}


def test_project_memo_keeps_the_newest_texts(tmp_path, monkeypatch):
    monkeypatch.setattr(project, "LAZY_CHARS", len(SOURCE) * 2)
    monkeypatch.setattr(project, "_LAZY", {})
    monkeypatch.setattr(project, "_MEMO", {})
    paths = []
    for i in range(3):
        p = tmp_path / f"m{i}.py"
        p.write_text(SOURCE)
        paths.append(str(p))
    first = project.summaries_of(paths[0])
    assert project.summaries_of(paths[0]) is first  # memoised
    project.summaries_of(paths[1])
    project.summaries_of(paths[2])
    assert len(project._LAZY) == 2 and os.path.realpath(paths[0]) not in project._MEMO  # the oldest went
    again = project.summaries_of(paths[0])
    assert again is not first and _same(dict(again.items()), summarize(SOURCE))


def test_one_table_looked_up_from_threads():
    import threading

    whole = summarize(SOURCE)
    keys = [k for k in whole if "." in k and not k.startswith(" ")]
    for _ in range(5):
        lazy, got = OwnSummaries(SOURCE), {}

        def look(order):
            for k in order:
                got.setdefault(k, set()).add(repr(lazy[k]))

        threads = [threading.Thread(target=look, args=(keys[i:] + keys[:i],)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert got == {k: {repr(whole[k])} for k in keys}


# Helpers that call each other (the `helpers` memo cuts a cycle where it
# started, so a function's summary depends on those summarised before it),
# one name defined twice, and a class whose `__call__` cuts (`instances`).
FUNCTIONS = '''
import torch

class Cut:
    def __call__(self, x):
        return x.detach()

def a(x):
    return b(x) * 2

def b(x):
    if x is None:
        return a(x)
    return float(x)

def c(x, n):
    return a(x) + b(n) + Cut()(x)

def a(x):
    return x.detach() if x else b(x)

def train(loader, model, opt):
    for x in loader:
        loss = c(model(x), 1)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return a(loss)
'''


def test_functions_as_asked_match_the_whole_table():
    texts = [FUNCTIONS]
    for sub in ("migration", "AD101", "AD104"):
        folder = os.path.join(ROOT, "corpus", sub)
        texts += [open(os.path.join(folder, n), encoding="utf-8").read()
                  for n in sorted(os.listdir(folder)) if n.endswith(".py")]
    checked = 0
    for text in texts:
        whole = summarize(text)
        names = [k for k in whole if "." not in k and not k.startswith(" ")]
        orders = itertools.permutations(names) if len(names) <= 4 else [reversed(names), names]
        for order in orders:
            lazy = OwnSummaries(text)
            for k in order:
                assert repr(lazy[k]) == repr(whole[k]), k
                checked += 1
            assert _same(dict(lazy.items()), whole)
        lazy = OwnSummaries(text)
        if names:
            lazy[names[0]]  # only the first is summarised; the rest wait
            assert list(lazy._funcs) == names[:1]
    assert checked > 100
