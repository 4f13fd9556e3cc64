"""buffers_only (analysis/buffer_modules.py): what it decides, and that its walk
goes in source order, so that a module class's `nn.Linear` in `__init__` ends it
before the methods after it are read."""
import libcst as cst

from autodetach.analysis import buffer_modules
from autodetach.imports import ImportTable

MODEL = '''
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x).relu()

class SDE(torch.nn.Module):
    def __init__(self, mu, theta=lambda: nn.Linear(1, 1)):
        super().__init__()
        self.register_buffer("mu", torch.as_tensor(mu))
        self.theta = 0.5

class Plain(torch.nn.Module):
    def __init__(self, mu):
        super().__init__()
        self.register_buffer("mu", torch.as_tensor(mu))
        self.theta = -0.5
'''


def _classes():
    module = cst.parse_module(MODEL)
    imports = ImportTable.from_module(module)
    return {s.name.value: s for s in module.body if type(s) is cst.ClassDef}, imports


def test_decisions():
    classes, imports = _classes()
    assert not buffer_modules.buffers_only(classes["Net"], imports)
    # `nn.Linear` made in a default's lambda still counts: the walk reaches every call
    assert not buffer_modules.buffers_only(classes["SDE"], imports)
    assert buffer_modules.buffers_only(classes["Plain"], imports)


def test_walk_in_source_order():
    classes, _ = _classes()
    order = [n.name.value for n in buffer_modules._walk(classes["Net"]) if type(n) is cst.FunctionDef]
    assert order == ["__init__", "forward"]
