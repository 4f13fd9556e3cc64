"""`from torch.nn.parameter import Parameter` (the class's own module, as GCN code
writes it) makes a leaf like `nn.Parameter`, and a store through `p.data[i] +=`
keeps no graph on `p` (the `.data` alias that takes it is dropped at once)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

ATTACK = """
import torch
{imp}


def attack(features, steps, n):
    adj = {ctor}(torch.zeros(n, n))
    for i in range(steps):
        modified = adj + 1
        loss = (modified @ features).pow(2).mean()
        grad = torch.autograd.grad(loss, adj, retain_graph=True)[0]
        row = int(torch.argmax(grad)) // n
        adj.data[row][0] += (-2 * modified[row][0] + 1)
    return adj
"""


def _found(tmp_path, imp, ctor):
    path = tmp_path / "attack.py"
    path.write_text(textwrap.dedent(ATTACK.format(imp=imp, ctor=ctor)))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return sorted((f.code, f.line) for f in findings if f.code.startswith("AD1"))


def test_parameter_from_its_own_module_is_a_leaf(tmp_path):
    nn_form = _found(tmp_path, "", "torch.nn.Parameter")
    own_module = _found(tmp_path, "from torch.nn.parameter import Parameter", "Parameter")
    assert ("AD104", 11) in nn_form
    assert own_module == nn_form


def test_store_through_data_keeps_no_graph(tmp_path):
    found = _found(tmp_path, "", "torch.nn.Parameter")
    assert not [f for f in found if f[0] == "AD102"]
    assert ("AD104", 11) in found
