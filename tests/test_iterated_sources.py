"""A data source made before the loop by a call given only settings and objects
(analysis/iterated_sources.py): what a `for` draws from it is no graph. Next to the
values made by the same kind of call that must still be reported."""
import textwrap

import autodetach

NODE2VEC = """
import torch
from torch_geometric.nn import Node2Vec

def main(edge_index, args):
    model = Node2Vec(edge_index, 128, 20, 10, sparse=True)
    {made}
    optimizer = torch.optim.SparseAdam(list(model.parameters()), lr=0.01)
    for epoch in range(3):
        {loop}
            optimizer.zero_grad()
            loss = model.loss({use})
            loss.backward()
            optimizer.step()
"""

RENAMED = """
import torch
from opacus import PrivacyEngine

def main(model, dl):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    engine = PrivacyEngine()
    model, optimizer, poisson_dl = engine.make_private(module=model, optimizer=optimizer, data_loader=dl,
                                                       noise_multiplier=1.0, max_grad_norm=1.0)
    for x, y in poisson_dl:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
"""


def codes(src):
    return sorted(f.code for f in autodetach.check_code(textwrap.dedent(src), select=["AD1"]))


def test_loader_a_module_hands_out_is_not_reported():
    src = NODE2VEC.format(made="loader = model.loader(batch_size=128, shuffle=True, num_workers=4)",
                          loop="for i, (pos_rw, neg_rw) in enumerate(loader):", use="pos_rw, neg_rw")
    assert codes(src) == []


def test_loader_a_setup_call_hands_back_under_a_new_name_is_not_reported():
    assert codes(RENAMED) == []


def test_values_a_module_method_computes_on_data_are_reported():
    # a positional argument the method may compute on: the rows carry the method's graph
    src = NODE2VEC.format(made="walks = model.embed(data)", loop="for pos_rw in walks:", use="pos_rw, pos_rw")
    assert codes(src.replace("def main(edge_index, args):", "def main(edge_index, args, data):")) == ["AD107"]


def test_value_of_a_settings_call_read_directly_is_reported():
    src = NODE2VEC.format(made="table = model.loader(batch_size=128)", loop="for i in range(4):", use="table, i")
    assert codes(src) == ["AD107"]
