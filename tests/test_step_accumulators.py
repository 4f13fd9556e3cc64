"""A step function that adds its backwarded loss in place into a tensor it
reaches through an argument or `self` (analysis/step_accumulators.py)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _found(src: str):
    rules = [r for r in all_rules() if r.code == "AD102"]
    found, _, _ = check_source(textwrap.dedent(src), "train.py", rules, Options())
    return [(f.line, f.fix, f.message) for f in found]


def test_in_place_add_into_an_argument_statistic_is_reported_unsafe():
    found = _found("""
import torch

def take_training_step(model, criterion, batch, stats, scaler):
    loss = criterion(model(batch["x"]), batch["y"])
    stats.device_stat("average_loss").add_(loss)
    scaler.scale(loss).backward()
""")
    assert [(line, fix) for line, fix, _ in found] == [(6, "unsafe")]
    assert "reached through the argument `stats`" in found[0][2]


def test_element_of_an_argument_and_values_computed_from_the_loss():
    found = _found("""
def step(model, batch, totals, opt):
    loss = model(batch).mean()
    scaled = loss * 2
    totals["loss"] += scaled
    loss.backward()
    opt.step()
""")
    assert [line for line, _, _ in found] == [5]


def test_detached_no_grad_local_or_backwarded_accumulators_are_left_alone():
    for body in ("""
    stats.device_stat("loss").add_(loss.detach())
""", """
    with torch.no_grad():
        stats.device_stat("loss").add_(loss)
""", """
    total = torch.zeros(())
    total.add_(loss)
""", """
    stats.loss.data.add_(loss)
"""):
        src = "import torch\n\ndef step(model, x, stats):\n    loss = model(x).mean()\n" + \
            textwrap.indent(textwrap.dedent(body), "    ") + "    loss.backward()\n"
        assert _found(src) == [], body
    assert _found("""
def step(model, x, acc):
    loss = model(x).mean()
    acc.add_(loss)
    acc.backward()
""") == []
