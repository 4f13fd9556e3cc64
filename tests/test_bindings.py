"""analysis/bindings.py: scopes, bindings and reads by Python's rules, and
what changed for AD110/AD202/AD203, and AD212/AD215/AD216, when they moved
onto it (issue 8)."""
import textwrap

import libcst as cst

from autodetach.context import FileContext
from autodetach.engine import Options, check_source
from autodetach.registry import by_code


def _ctx(src):
    return FileContext(cst.parse_module(textwrap.dedent(src)))


def _reads(ctx, name):
    """[(scope kind where read, owner kind or None)] for every read of `name`."""
    b = ctx.bindings
    return sorted((s.kind, getattr(b.owner(name, s), "kind", None) or "-") for n, s in b.reads if n.value == name)


def _found(code, src):
    found, _, _ = check_source(textwrap.dedent(src).lstrip("\n"), "t.py", [by_code()[code]], Options())
    return [f for f in found if f.code == code]


def test_built_lazily_on_the_file_context():
    ctx = _ctx("x = 1\n")
    assert "bindings" not in ctx.__dict__
    assert [b.kind for b in ctx.bindings.module.names["x"]] == ["assign"]
    assert "bindings" in ctx.__dict__


def test_class_body_does_not_enclose_its_methods_or_comprehensions():
    ctx = _ctx("""
        x = 1
        class A:
            x = 2
            y = x
            z = [x for _ in range(3)]
            def m(self, a=x):
                return x
    """)
    # class body, comprehension, the default (evaluated in the class), the method
    assert _reads(ctx, "x") == [("class", "class"), ("class", "class"), ("comprehension", "module"),
                                ("function", "module")]


def test_comprehension_targets_stay_inside_walrus_does_not():
    ctx = _ctx("""
        def f(xs):
            ys = [h for h in xs if (last := h)]
            return h, last
    """)
    f = ctx.bindings.scopes[ctx.module.body[0]]
    assert "h" not in f.names and [b.kind for b in f.names["last"]] == ["walrus"]
    assert _reads(ctx, "h") == [("comprehension", "comprehension"), ("comprehension", "comprehension"),
                                ("function", "-")]
    assert _reads(ctx, "xs") == [("function", "function")]  # the first iterable runs outside


def test_global_and_nonlocal_bind_where_they_point():
    ctx = _ctx("""
        total = 0
        def add(v):
            global total
            total += v
        def outer():
            n = 0
            def inc():
                nonlocal n
                n = n + 1
            return n
    """)
    b = ctx.bindings
    assert [x.kind for x in b.module.names["total"]] == ["assign", "augassign"]
    outer = b.scopes[ctx.module.body[2]]
    assert [x.kind for x in outer.names["n"]] == ["assign", "assign"]
    assert _reads(ctx, "n") == [("function", "function"), ("function", "function")]


def test_binding_forms_and_their_values():
    ctx = _ctx("""
        import torch.nn as nn, os.path
        from m import *
        def f(model: nn.Module, *args, k=1, **kw):
            n, (a, *rest) = 0, (1, 2, 3)
            for i, x in enumerate(args):
                pass
            with open(p) as fh:
                pass
            try:
                pass
            except ValueError as e:
                del e
            self.h: int = 3
    """)
    b = ctx.bindings
    m = b.module
    assert [(x.kind, cst.Module([]).code_for_node(x.value)) for x in m.names["nn"]] == [("import", "torch.nn")]
    assert "os" in m.names and m.star_import
    f = b.scopes[ctx.module.body[2]]
    kinds = {k: [x.kind for x in v] for k, v in f.names.items()}
    assert kinds == {"model": ["param"], "args": ["param"], "k": ["param"], "kw": ["param"],
                     "n": ["assign"], "a": ["assign"], "rest": ["assign"], "i": ["for"], "x": ["for"],
                     "fh": ["with"], "e": ["except", "del"]}
    assert f.names["model"][0].value.attr.value == "Module"  # the annotation
    assert f.names["n"][0].element().value == "0" and f.names["a"][0].element().value == "1"
    assert f.names["rest"][0].path is None and f.names["rest"][0].element() is None
    assert [x.kind for x in f.attrs["self.h"]] == ["assign"]


# --- where the four rules disagreed, now Python's rule ------------------------

def test_ad203_comprehension_variable_does_not_leak():
    """Before: `[loss for loss in outs]` made `loss` unknowable in the whole
    function (Python 2 scoping), so `loss.data[0]` got only an unsafe fix."""
    (f,) = _found("AD203", """
        import torch.nn as nn
        crit = nn.MSELoss()
        def f(a, b, outs):
            loss = crit(a, b)
            names = [loss for loss in outs]
            return loss.data[0]
    """)
    assert f.fix == "safe", f.message


def test_ad202_class_body_is_its_own_scope():
    """Before: a name read in a class body resolved to the module's binding,
    so `Variable(x)` lost its wrapper and reconnected the class's graph."""
    (f,) = _found("AD202", """
        import torch
        from torch.autograd import Variable
        x = torch.zeros(3)
        class Net:
            x = model(inp)
            y = Variable(x)
    """)
    assert "x.detach()" in f.message


def test_ad202_global_follows_the_module_bindings():
    """Before: `global buf` made `buf` unknown. Now its bindings are the
    module's, wherever they run: fresh only if every one of them is."""
    src = """
        import torch
        from torch.autograd import Variable
        buf = torch.zeros(3)
        def reset():
            global buf
            buf = {}
        def use():
            global buf
            return Variable(buf)
    """
    (fresh,) = _found("AD202", src.format("torch.ones(3)"))
    assert "use it directly" in fresh.message
    (graph,) = _found("AD202", src.format("model(x)"))
    assert "buf.detach()" in graph.message


def test_ad110_lstm_found_in_the_enclosing_function():
    """Before: the LSTM was looked for in the statement's function, then the
    module, skipping the enclosing function Python looks in."""
    (f,) = _found("AD110", """
        import torch.nn as nn
        def train(xs):
            lstm = nn.LSTM(4, 4)
            def step(x):
                out, hidden = lstm(x)
                hidden[0].detach()
                return out
    """)
    assert "`hidden` is a tuple" in f.message


def test_ad110_file_object_bound_in_the_module_is_not_a_tensor():
    """Before: `log` bound by open() at module level was not seen from a
    function, and `log.detach()` (which detaches the text buffer) was reported."""
    assert _found("AD110", """
        import torch
        log = open("log.txt", "w")
        def close_quietly():
            log.detach()
    """) == []


# --- values: what AD212/AD215/AD216 follow a name through ---------------------

def _values(ctx, name, nth=-1):
    """The values the `nth` read of `name` may hold, as code; None if unknown."""
    node = [n for n, _ in ctx.bindings.reads if n.value == name][nth]
    found = ctx.bindings.values(node)
    return None if found is None else [cst.Module([]).code_for_node(v) for v in found]


def test_values_plain_assignments_and_folds():
    ctx = _ctx("""
        def f(y):
            n = 0
            n += (y == 1).sum()
            n /= 2
            m = k = y.long()
            return n, m, k, (w := y.int()), w
    """)
    assert _values(ctx, "n") == ["0", "(y == 1).sum()"]  # `/=` adds nothing
    assert _values(ctx, "m") == ["y.long()"] and _values(ctx, "k") == ["y.long()"]
    assert _values(ctx, "w") == ["y.int()"]


def test_values_unknown_for_other_bindings_and_other_blocks():
    ctx = _ctx("""
        g = 1
        def f(p, xs):
            a, b = 1, 2
            c = 1
            c -= 1
            for i in xs:
                pass
            def inner():
                return c
            return p, a, i, c, g, [c for _ in xs]
    """)
    for name in ("p", "a", "i"):
        assert _values(ctx, name) is None, name
    assert _values(ctx, "c", 0) is None  # a closure read: not followed
    assert _values(ctx, "c", 1) is None  # `-=`
    assert _values(ctx, "g") is None  # a global read from a function
    assert _values(_ctx("g = 1\nh = g\n"), "g") == ["1"]


def test_values_see_python_scopes():
    """The comprehension's `x` and the lambda's `x` are not the function's."""
    ctx = _ctx("""
        def f():
            x = 2
            ys = [x for x in range(3)]
            g = lambda x: x
            return x, [x * k for k in range(3)]
    """)
    reads = [(s.kind, ctx.bindings.values(n)) for n, s in ctx.bindings.reads if n.value == "x"]
    assert [(k, v is not None and len(v)) for k, v in reads] == [
        ("comprehension", False), ("lambda", False), ("function", 1), ("comprehension", 1)]


def test_ad216_lambda_parameter_is_not_the_function_name():
    """Before (rules/_bindings.py): lambdas were no scope, so the lambda's `x`
    took the function's `x = torch.randn(2, 3)` and got a 'safe' `dim=1`,
    which fails on the 1-D tensors the lambda is given."""
    (f,) = _found("AD216", """
        import torch
        import torch.nn.functional as F
        def f():
            x = torch.randn(2, 3)
            return lambda x: F.softmax(x)
    """)
    assert f.fix == "none" and "rank is not known" in f.message


def test_ad216_comprehension_target_does_not_hide_the_function_name():
    """Before: a comprehension's target made the name unknown in the whole function."""
    (f, g) = _found("AD216", """
        import torch
        import torch.nn.functional as F
        def f():
            x = torch.randn(2, 3)
            ys = [F.softmax(x) for x in [torch.randn(4)]]
            return ys, F.softmax(x)
    """)
    assert f.fix == "none" and g.fix == "safe" and "2-D input" in g.message
