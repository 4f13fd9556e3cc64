"""Terms of a backwarded sum that come from one call (backwarded.py's
`_summed_parts`, flow's `_siblings`): `rec, kl = parts(model, x)`,
`loss = rec + beta * kl`, `loss.backward()` proves that the call's result
carries a graph, and the callee's code says which elements can. And the
summaries follow what fill calls put into a container (`d.update(...)`,
`d.setdefault(k, []).append(...)`)."""
import textwrap

import pytest

from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

HELPER = """
import torch.nn.functional as F


def parts(model, x, y):
    out = model(x)
    return F.mse_loss(out, y), F.l1_loss(out, y)
"""

LOOP = """

def train(model, optimizer, loader, args, beta=0.5):
    running = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        rec, reg = parts(model, x, y)
        {sum}
        loss.backward()
        optimizer.step()
        running += {kept}
    return running
"""


def _findings(body):
    text = textwrap.dedent(HELPER) + textwrap.dedent(body)
    findings, _, _ = check_source(text, "train.py", all_rules(), Options())
    return [f for f in findings if f.code.startswith("AD1")]


@pytest.mark.parametrize("total", ["loss = rec + reg", "loss = rec + beta * reg", "loss = rec - 0.1 * reg",
                                   "loss = rec + args.beta * reg"])
def test_a_summed_term_kept_is_reported(total):
    found = _findings(LOOP.format(sum=total, kept="rec"))
    assert [f.code for f in found] == ["AD102"]
    assert "whose results the backwarded `loss` adds up" in found[0].message
    assert found[0].fix == "unsafe"


@pytest.mark.parametrize("total, kept", [
    ("loss = rec + reg", "rec.item()"),  # a number
    ("loss = rec + reg", "float(reg)"),
    ("loss = model(x).sum() + rec", "rec.detach()"),
])
def test_no_report(total, kept):
    assert _findings(LOOP.format(sum=total, kept=kept)) == []


def test_a_term_from_another_call_proves_nothing():
    body = LOOP.format(sum="other, _ = parts(model, x, y)\n        loss = other + reg", kept="rec")
    assert all("adds up" not in f.message for f in _findings(body))


def test_fill_calls_are_followed_by_summaries():
    table = summarize(textwrap.dedent("""
        def by_update(model, x):
            d = {}
            d.update(out=model(x))
            return d["out"]

        def by_setdefault(model, x):
            d = {}
            d.setdefault("a", []).append(model(x))
            return d["a"]

        def by_item_append(model, xs):
            d = {"a": []}
            d["a"].append(model(xs))
            return d

        def numbers(model, x):
            d = {}
            d.update(out=model(x).item())
            return d["out"]
    """))
    for name in ("by_update", "by_setdefault", "by_item_append"):
        assert not table[name].no_graph, name
        assert table[name].result in ("graph", "unknown"), name
    assert table["numbers"].no_graph
