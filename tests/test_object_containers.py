"""A dict, list or tuple of names built once before the loop holds objects
(model, optimizer, loader), not a tensor computed from them:
`train_one_epoch(**train_args)` builds its graphs inside. A container that
holds a tensor computed from the model before the loop still does."""
import os
import textwrap

from autodetach.engine import check_code

CASE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "corpus", "AD107",
                    "ok_train_args_dict.py")

SRC = """
import torch
import torch.nn as nn

def epoch(model, optim, loader, n, extra):
    batches = iter(loader)
    for _ in range(n):
        x, y = next(batches)
        loss = ((model(x) - y) ** 2).mean() + extra.mean()
        optim.zero_grad()
        loss.backward()
        optim.step()

def main():
    model = nn.Linear(3, 1)
    optim = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = [(torch.randn(4, 3), torch.randn(4, 1))]
    {extra}
    args = {container}
    for _ in range(3):
        epoch(**args)
"""


def codes(extra, container):
    src = textwrap.dedent(SRC.replace("{extra}", extra).replace("{container}", container))
    return sorted(f.code for f in check_code(src, select=["AD107"]))


def test_a_dict_of_objects_is_no_graph_built_before_the_loop():
    with open(CASE, encoding="utf-8") as fh:
        assert [f.code for f in check_code(fh.read(), select=["AD1"])] == []  # FixMatch's shape
    assert codes("extra = torch.zeros(1)", "dict(model=model, optim=optim, loader=loader, n=2, extra=extra)") == []
    assert codes("extra = torch.zeros(1)",
                 "{'model': model, 'optim': optim, 'loader': loader, 'n': 2, 'extra': extra}") == []


def test_a_dict_holding_a_tensor_computed_before_the_loop_is_still_found():
    assert codes("extra = model(torch.ones(1, 3))",
                 "dict(model=model, optim=optim, loader=loader, n=2, extra=extra)") == ["AD107"]


LOADER = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

def main():
    enc = nn.Linear(3, 3)
    head = nn.Linear(3, 1)
    opt = torch.optim.SGD(head.parameters(), lr=0.1)
    feats = enc(torch.randn(16, 3))
    loader = DataLoader(TensorDataset(feats, torch.randn(16, 1)), batch_size=4{workers})
    for x, y in loader:
        loss = ((head(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def test_batches_from_loader_workers_carry_no_graph_of_the_dataset():
    # worker processes collate the batches anew (and cannot receive a tensor with a graph)
    def found(workers):
        return sorted({f.code for f in check_code(textwrap.dedent(LOADER.replace("{workers}", workers)),
                                                  select=["AD1"])})
    assert found(", num_workers=2") == []
    assert found("") != []  # in this process, each batch still hangs from `enc`'s graph
