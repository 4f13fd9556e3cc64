"""AD101 on a value carried from one iteration to the next out of a model call whose outputs the
analysis cannot read (intel-isl/MultiObjectiveOptimization: `rep, mask = model['rep'](images, mask)`,
`model` a dict a sibling module's factory fills): that the value carries a graph is inferred, and
the message says so. A torch layer's output is read as a graph: no such note."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

MODELS = """
import torch
from torch import nn


class Rep(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, mask):
        if mask is None:
            mask = torch.bernoulli(torch.full((1, 4), 0.5))
        return self.lin(x) * mask, mask


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 1)

    def forward(self, x, mask):
        return self.lin(x), mask
"""

SELECTOR = """
from models import Rep, Head


def get_model(params):
    model = {}
    model['rep'] = Rep()
    for t in params['tasks']:
        model[t] = Head()
    return model
"""

TRAIN = """
import torch
import selector

params = {'tasks': ['a', 'b']}
model = selector.get_model(params)
model_params = []
for m in model:
    model_params += model[m].parameters()
opt = torch.optim.SGD(model_params, lr=0.1)
for x in [torch.randn(2, 4) for _ in range(3)]:
    mask = None
    for t in params['tasks']:
        opt.zero_grad()
        rep, mask = model['rep'](x, mask)
        out_t, _ = model[t](rep, None)
        loss = out_t.pow(2).mean()
        loss.backward()
"""

LINEAR = """
import torch
from torch import nn

m = nn.Linear(4, 1)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
prev = torch.zeros(2, 1)
for i in range(3):
    out = m(torch.randn(2, 4))
    loss = (out - prev).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    prev = out
"""


def _ad101(root, files: dict, main: str):
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))
    rules = [r for r in all_rules() if r.code == "AD101"]
    found, _, _ = check_source(textwrap.dedent(files[main]), str(root / main), rules, Options())
    return [f for f in found if f.code == "AD101"]


def test_output_of_an_unresolved_model_entry_is_inferred(tmp_path):
    found = _ad101(tmp_path, {"models.py": MODELS, "selector.py": SELECTOR, "train.py": TRAIN}, "train.py")
    assert [f.line for f in found] == [15]
    assert "inferred: `mask` carries a graph" in found[0].message
    assert "`model['rep']`, whose forward was not read" in found[0].message


def test_torch_layer_output_is_read_not_inferred(tmp_path):
    found = _ad101(tmp_path, {"train.py": LINEAR}, "train.py")
    assert [f.line for f in found] == [14]
    assert "inferred" not in found[0].message
