"""A loss computed inline in an append (`history.append(criterion(net(x), y))`)
is kept with its graph like one bound to a name first; modules built inline in
an append (`layers.append(block(n))`) carry no graph."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

LOOP = """
import torch
import torch.nn as nn

net = nn.Linear(4, 1)
criterion = nn.MSELoss()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
history = []
for step in range(3):
    x, y = torch.randn(2, 4), torch.randn(2, 1)
    loss = criterion(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    KEEP
"""

LAYERS = """
import torch
import torch.nn as nn


def up_block(n):
    block = nn.Sequential(nn.Linear(n, n), nn.ReLU())  # `block` names a module elsewhere in the file
    return block


class Block(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)

    def forward(self, x):
        return x + self.fc(x)


class Net(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n
        self.define_module()

    def _make_layer(self, block, n):
        layers = []
        for i in range(3):
            layers.append(block(n))
        return nn.Sequential(*layers)

    def define_module(self):
        self.body = self._make_layer(Block, self.n)

    def forward(self, x):
        return self.body(x)
"""


def _ad1(tmp_path, src):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(src))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return sorted((f.code, f.line) for f in findings if f.code.startswith("AD1"))


def test_inline_loss_in_an_append_is_kept_with_its_graph(tmp_path):
    assert _ad1(tmp_path, LOOP.replace("KEEP", "history.append(criterion(net(x), y))")) == [("AD102", 15)]
    assert _ad1(tmp_path, LOOP.replace("KEEP", "history.append(criterion(net(x), y).item())")) == []


def test_modules_built_inline_in_an_append_carry_no_graph(tmp_path):
    assert _ad1(tmp_path, LAYERS) == []
