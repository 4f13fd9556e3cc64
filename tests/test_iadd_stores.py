"""`self.tracks[k] += v` runs the tracks' `__iadd__` (analysis.iadd_stores), and
`y = x.add(m)` is a tensor's sum, not a set's add (flow._result_read)."""
import textwrap

from autodetach import check_code
from autodetach.analysis.summaries import summarize

TRACKER = """
    import torch


    class Mean:
        def __init__(self):
            self.values = []

        def __iadd__(self, value):
            self.values.append({})
            return self


    class Tracker:
        def __init__(self):
            self.tracks = {{}}

        def update(self, d):
            for k, v in d.items():
                if k not in self.tracks:
                    track = Mean()
                    self.tracks[k] = track
                self.tracks[k] += v
"""


def _accum(value: str):
    return summarize(textwrap.dedent(TRACKER.format(value)))["Tracker.update"].accum


def test_iadd_that_detaches_keeps_nothing():
    assert _accum("value.detach().cpu()") == ()
    assert _accum("float(value)") == ()


def test_iadd_that_keeps_the_value_is_a_store():
    assert _accum("value") != ()


def test_plus_equals_on_tensor_state_is_still_a_store():
    text = TRACKER.format("value").replace("track = Mean()", "track = torch.zeros(())")
    assert summarize(textwrap.dedent(text))["Tracker.update"].accum != ()


LOOP = """
    import torch
    from torch import nn
    net = nn.Linear(4, 4)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    mean = torch.ones(4)
    running_loss = 0
    seen = set()
    for i in range(3):
        out = net(torch.randn(2, 4))
        shifted = out.add(mean)
        loss = shifted.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        seen.add(i)
        running_loss += {}
    print(running_loss / 3, len(seen))
"""


def test_tensor_add_result_keeps_the_graph():
    found = check_code(textwrap.dedent(LOOP.format("shifted.abs().sum()")), select=["AD1"])
    assert [f.code for f in found] == ["AD102"]


def test_set_add_statement_stays_a_container_add():
    assert check_code(textwrap.dedent(LOOP.format("loss.item()")), select=["AD1"]) == []
