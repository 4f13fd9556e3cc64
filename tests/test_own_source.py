"""autodetach on its own source: the project's config says our code has no
findings. It had one: AD101 through analysis.eval_loops on a cache lookup in
rules/ad202 (`self.ctx.bindings.lookup(node)` taken for a module call), in a
file that never names torch."""
import os

import autodetach

from .cli_helper import invoke

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_own_source_has_no_findings():
    res = invoke(["--no-cache", "--output-format", "concise", os.path.join(ROOT, "autodetach")])
    assert res.code == 0, res.out


def test_eval_inference_still_made_where_torch_is_named():
    with open(os.path.join(ROOT, "corpus", "AD102", "eval_with_grad.py"), encoding="utf-8") as fh:
        found = autodetach.check_code(fh.read(), select=["AD1"])
    assert [f.code for f in found] == ["AD102"]
    assert "runs with gradients on" in found[0].message


def test_torch_autograd_functional_reads_without_an_internal_error():
    # A loop's leak check indexed the loops of an `autograd.grad(create_graph=True)`
    # made outside any loop (IndexError in rule AD101), reached through the
    # local helpers torch's autograd/functional.py calls.
    import torch

    path = os.path.join(os.path.dirname(torch.__file__), "autograd", "functional.py")
    res = invoke(["--no-cache", "--output-format", "concise", "--select", "AD1", path])
    assert "internal error" not in res.out + getattr(res, "err", ""), res.out
    assert res.code in (0, 1), res.out


def test_own_source_has_no_redefined_or_undefined_names():
    # Two branches once added a helper of the same name to one module; the
    # second silently replaced the first and its conditions were dead code.
    from pyflakes.api import checkPath
    from pyflakes.reporter import Reporter
    import io

    out, err = io.StringIO(), io.StringIO()
    reporter = Reporter(out, err)
    for dirpath, _, files in os.walk(os.path.join(ROOT, "autodetach")):
        for name in sorted(files):
            if name.endswith(".py"):
                checkPath(os.path.join(dirpath, name), reporter)
    bad = [line for line in out.getvalue().splitlines() if "redefinition of unused" in line or "undefined name" in line]
    assert not bad and not err.getvalue(), bad or err.getvalue()
