"""Session 36, prec69: wrong findings on correct code (issue 8, precision).

1. decide._fate: a function walked inline at its call (`fit(net, data, opt)`) steps the caller's
   `opt`, which owns `net`, the module the callee calls `model`: the gradients its first backward
   puts into `model` are stepped (handed_modules), not "zeroed before any optimizer steps them"
   (AD103 offered a detach that stops a head learning where AD105's retain is the fix).
2. self_resets: a method that empties a container (`self.table.clear()`) or binds an empty one
   sets that state anew; called on an object of a local class (`cache.clear()`, `self.grads.reset()`)
   it drops the graphs its walked methods stored (AD101 on a create_graph=True cache emptied every step).
3. AD101's refused fix on `logits, hidden = self.decode(inp, hidden)`: the call returns a tuple and the
   kept graph is in the element `hidden`; the message said the call "is not a tensor" as if that were
   the kept value (plain_values.unpacked_why).
"""
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _findings(path):
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code.startswith("AD1")]


# ---------------------------------------------------------------- 1. a callee's module is the caller's
HEADS = '''
import torch
import torch.nn as nn


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 8)
        self.box = nn.Linear(8, 4)
        self.cls = nn.Linear(8, 3)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.box(h), self.cls(h)
'''

FIT = '''
import torch
import torch.nn.functional as F
from heads import Heads


def fit(model, loader, optimizer):
    for x, boxes, labels in loader:
        preds = model(x)
        box_loss = (preds[0] - boxes).abs().mean()
        cls_loss = F.cross_entropy(preds[1], labels)
        optimizer.zero_grad()
        box_loss.backward()
        cls_loss.backward()
        optimizer.step()


net = Heads()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
data = [(torch.randn(2, 8), torch.randn(2, 4), torch.randint(0, 3, (2,)))]
fit(net, data, opt)
LOOP
'''

SCRIPT_LOOP = '''
other = Heads()
other_opt = torch.optim.Adam(other.parameters())
for x, boxes, labels in data:
    preds = other(x)
    box_loss = (preds[0] - boxes).abs().mean()
    cls_loss = F.cross_entropy(preds[1], labels)
    other_opt.zero_grad()
    box_loss.backward(retain_graph=True)
    cls_loss.backward()
    other_opt.step()
'''

# the same names trained once more by the function's own optimizer, under other names
SECOND_CALL = '''
for epoch in range(2):
    preds = net(data[0][0])
    box_loss = preds[0].sum()
    opt.zero_grad()
    box_loss.backward()
    opt.step()
'''


def _fit_findings(tmp_path, loop):
    (tmp_path / "heads.py").write_text(HEADS)
    path = tmp_path / "train.py"
    path.write_text(FIT.replace("LOOP", loop))
    return [f for f in _findings(path) if f.line < 16]


def test_callee_steps_the_module_it_was_handed(tmp_path):
    for loop in (SCRIPT_LOOP, SECOND_CALL):
        found = _fit_findings(tmp_path, loop)
        assert [f.code for f in found] == ["AD105"], [f.message for f in found]
        assert "zeroed" not in found[0].message


METHOD = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 8)
        self.a = nn.Linear(8, 1)
        self.b = nn.Linear(8, 1)

    def forward(self, x):
        h = torch.tanh(self.body(x))
        return self.a(h), self.b(h)


class Runner:
    def epoch(self, net, batches, sgd):
        for x, y in batches:
            outs = net(x)
            first = F.mse_loss(outs[0], y)
            second = F.mse_loss(outs[1], y)
            sgd.zero_grad()
            first.backward()
            second.backward()
            sgd.step()


runner = Runner()
model = Heads()
optim = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.randn(4, 8), torch.randn(4, 1))]
runner.epoch(model, batches, optim)
aux = Heads()
aux_optim = torch.optim.SGD(aux.parameters(), lr=0.1)
for x, y in batches:
    outs = aux(x)
    first = F.mse_loss(outs[0], y)
    second = F.mse_loss(outs[1], y)
    aux_optim.zero_grad()
    (first + second).backward()
    aux_optim.step()
'''


def test_method_walked_with_other_loop_below(tmp_path):
    path = tmp_path / "run.py"
    path.write_text(METHOD)
    found = _findings(path)
    assert "AD103" not in [f.code for f in found], [f.message for f in found]


# ---------------------------------------------------------------- 2. a cache emptied every step
CACHE = '''
import torch
import torch.nn as nn


class SlopeCache:
    def __init__(self):
        self.table = {}

    def slope(self, net, x, pair):
        if pair not in self.table:
            x = x.requires_grad_(True)
            y = net(x).sum()
            self.table[pair] = torch.autograd.grad(y, x, create_graph=True)[0]
        return self.table[pair]

    def clear(self):
        RESET


net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
cache = SlopeCache()
for step in range(3):
    x = torch.randn(5, 3)
    loss = (cache.slope(net, x, (0, 1)) - 1.0).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    INLOOP
AFTER
'''

TRAINER = '''
import torch
import torch.nn as nn


class PairGrads:
    def __init__(self):
        self.memo = dict()

    def get(self, f, x, i, j):
        if (i, j) not in self.memo:
            x.requires_grad_(True)
            out = f(x)[:, i].sum()
            self.memo[(i, j)] = torch.autograd.grad(out, x, create_graph=True)[0][:, j]
        return self.memo[(i, j)]

    def reset(self):
        RESET


class Trainer:
    def __init__(self):
        self.net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
        self.opt = torch.optim.Adam(self.net.parameters(), lr=1e-2)
        self.grads = PairGrads()

    def run(self, steps):
        for it in range(steps):
            x = torch.randn(6, 3)
            loss = (self.grads.get(self.net, x, 0, 1) - self.grads.get(self.net, x, 1, 0)).pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.grads.reset()
'''


def _src(tmp_path, text, **parts):
    for key, value in parts.items():
        text = text.replace(key, value)
    path = tmp_path / "fit.py"
    path.write_text(text)
    return [f.code for f in _findings(path)]


def test_cache_emptied_every_step_keeps_no_graph(tmp_path):
    assert _src(tmp_path, CACHE, RESET="self.table.clear()", INLOOP="cache.clear()", AFTER="") == []
    assert _src(tmp_path, CACHE, RESET="self.table = {}", INLOOP="cache.clear()", AFTER="") == []
    assert _src(tmp_path, TRAINER, RESET="self.memo.clear()") == []
    assert _src(tmp_path, TRAINER, RESET="self.memo = dict()") == []


def test_cache_kept_across_steps_still_found(tmp_path):
    # emptied once, after the loop: the second step reads the first step's freed graph
    assert _src(tmp_path, CACHE, RESET="self.table.clear()", INLOOP="pass", AFTER="cache.clear()") == ["AD101"]
    # emptied only when large: not every call
    assert _src(tmp_path, TRAINER, RESET="if len(self.memo) > 100:\n            self.memo.clear()") == ["AD101"]
    assert _src(tmp_path, TRAINER, RESET="print(len(self.memo))") == ["AD101"]


# ---------------------------------------------------------------- 3. the kept element of an unpacked tuple
GEN = '''
import torch
import torch.nn as nn


class CharGen(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.cell = nn.GRUCell(8, 16)
        self.out = nn.Linear(16, 10)

    def forward(self, inp, hidden):
        hidden = self.cell(self.emb(inp), hidden)
        return self.out(hidden), hidden

    def decode(self, inp, state):
        state = self.cell(self.emb(inp), state)
        return self.out(state), state, int(inp)

    def fit(self, steps):
        opt = torch.optim.Adam(self.parameters(), lr=1e-3)
        for it in range(steps):
            x = torch.randint(0, 10, (5,))
            logits, _ = self(x, torch.zeros(5, 16))
            loss = nn.functional.cross_entropy(logits, x)
            opt.zero_grad()
            loss.backward()
            opt.step()
            print(self.sample(6))

    def sample(self, n):
        hidden = torch.zeros(1, 16)
        inp = torch.zeros(1, dtype=torch.long)
        chars = []
        for t in range(n):
            CALL
            inp = torch.multinomial(torch.softmax(logits, dim=1).view(-1), 1)
            chars.append(int(inp))
        return chars


CharGen().fit(3)
'''


def test_unpacked_state_message_names_the_element(tmp_path):
    for call, place in (("logits, hidden = self.forward(inp, hidden)", 1),
                        ("logits, hidden, used = self.decode(inp, hidden)", 1),
                        ("hidden, logits = self.forward(inp, hidden)[::-1]", None)):
        path = tmp_path / "gen.py"
        path.write_text(GEN.replace("CALL", call))
        found = [f for f in _findings(path) if f.code == "AD101"]
        if place is None:
            assert all("unpacked" not in f.message for f in found)
            continue
        assert len(found) == 1 and not found[0].fixable, [f.message for f in found]
        msg = found[0].message
        assert "is not a tensor" not in msg, msg
        assert f"returns a tuple, and `hidden`, unpacked from it (element {place})" in msg, msg
