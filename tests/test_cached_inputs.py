"""Data cached before a loop by a helper of another file: an instance of a class
whose `__call__` returns detached values, gathered in a list and concatenated.
The helper's summary says its result carries no graph, so a loop that builds a
fresh graph from the cache each iteration does not need `retain_graph=True`."""
import textwrap

from autodetach.analysis.summaries import summarize

HELPER = """
import torch


class Recorder:
    def __init__(self, model, layer):
        self.model = model
        self.layer = layer

    def __call__(self, batch):
        out = self.model(batch)
        return out{cut}, self.layer(out){cut}


def cache(model, layer, data):
    record = Recorder(model, layer)
    pairs = []
    for chunk in data.split(4):
        inp, out = record(chunk)
        pairs.append((inp.cpu(), out.cpu()))
    return torch.cat([p[0] for p in pairs]), torch.cat([p[1] for p in pairs])


def cache_direct(model, layer, data):
    grads = [Recorder(model, layer)(chunk)[0] for chunk in data.split(4)]
    return torch.cat([g for g in grads])
"""


def _table(cut):
    return summarize(textwrap.dedent(HELPER.format(cut=cut)))


def test_detached_instance_results_are_cut():
    table = _table(".detach()")
    assert table["Recorder.__call__"].no_graph
    assert table["cache"].result == "cut"
    assert table["cache"].elems == ("cut", "cut")
    assert table["cache_direct"].result == "cut"


def test_instance_results_with_graph_are_not_cut():
    table = _table("")
    assert not table["Recorder.__call__"].no_graph
    assert table["cache"].result != "cut"
    assert table["cache_direct"].result != "cut"


def test_comprehension_over_a_parameter_keeps_its_graph():
    table = summarize(textwrap.dedent("""
        import torch

        def stack(xs):
            return torch.stack([x[0] for x in xs])
    """))
    assert table["stack"].result != "cut"


def test_comprehension_over_a_dict_filled_out_of_sight_is_not_cut():
    table = summarize(textwrap.dedent("""
        import torch

        def gather(model, xs):
            parts = {}
            parts.update({"a": model(xs)})
            return torch.stack([v for v in parts.values()])
    """))
    assert table["gather"].result != "cut"
    assert table["gather"].result != "const"
