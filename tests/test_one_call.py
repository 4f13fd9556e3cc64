"""Sums kept for one call only (analysis/one_call.py): a loop over the parts
of a model (agents, topologies) and the sub-steps of one step (meta-learning
tasks), each next to the nearest shape that must still be reported; and
functions that return a graph-free value in one branch and a tuple in others."""
import textwrap

import libcst as cst

import autodetach
from autodetach.context import FileContext


def codes(src, select="AD1"):
    return sorted((f.code, f.line) for f in autodetach.check_code(textwrap.dedent(src), select=[select]))


AGENTS = """
import torch
import torch.nn as nn

class Trainer:
    def __init__(self, n):
        self.n = n
        self.history = []
        self.critics = [nn.Linear(3, 1) for _ in range(n)]
        self.opts = [torch.optim.SGD(c.parameters(), lr=0.1) for c in self.critics]

    def update(self, x):
        c_loss = []
        for agent in range(self.n):
            self.opts[agent].zero_grad()
            loss = self.critics[agent](x).pow(2).mean()
            loss.backward()
            self.opts[agent].step()
            {store}
        return c_loss

def main(steps):
    t = Trainer(2)
    for _ in range(steps):
        print(sum(l.item() for l in t.update(torch.randn(4, 3))))
"""


def test_per_agent_list_made_at_each_call_is_not_reported():
    assert codes(AGENTS.format(store="c_loss.append(loss)")) == []


def test_per_agent_history_on_self_is_reported():
    assert codes(AGENTS.format(store="self.history.append(loss)")) == [("AD102", 19)]


ZIPPED = """
import torch
import torch.nn as nn

def update(nets, opts, x):
    losses = []
    for net, opt in zip(nets, opts):
        opt.zero_grad()
        loss = net(x).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss)
    return losses

nets = [nn.Linear(3, 1) for _ in range(2)]
opts = [torch.optim.SGD(n.parameters(), lr=0.1) for n in nets]
for step in range(3):
    print([l.item() for l in update(nets, opts, torch.randn(4, 3))])
"""


def test_zip_over_models_and_optimizers_is_a_loop_over_parts():
    assert codes(ZIPPED) == []


DATA = """
import torch
import torch.nn as nn

net = nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(8)]

def train():
    losses = []
    for i in range(len(data)):
        opt.zero_grad()
        loss = net(data[i]).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss)
    return losses
"""


def test_index_into_data_is_not_a_loop_over_parts():
    assert codes(DATA) == [("AD102", 16)]


META = """
import torch
import torch.nn as nn
import torch.nn.functional as F

net = nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)

def update(x, tasks):
    opt.zero_grad()
    feats = torch.tanh(net(x))
    metas = []
    for task in tasks:
        inner = (feats * task).pow(2).mean()
        g, = torch.autograd.grad(inner, [net.weight], create_graph=True)
        metas.append(F.linear(x, net.weight - 0.1 * g, net.bias).pow(2).mean())
    loss = torch.stack(metas).mean()
    loss.backward(retain_graph=True)
    feats.pow(2).mean().backward()
    opt.step()

for step in range(3):
    update(torch.randn(4, 3), [1.0, 2.0])
"""


def test_task_losses_of_one_step_are_not_reported():
    assert codes(META) == []


REWALK = """
import torch
import torch.nn as nn

nets = [nn.Linear(3, 1) for _ in range(2)]
opts = [torch.optim.SGD(n.parameters(), lr=0.1) for n in nets]

def update(x):
    total = 0
    for i in range(2):
        opts[i].zero_grad()
        total = total + nets[i](x).pow(2).mean()
        total.backward(retain_graph=True)
        opts[i].step()

for step in range(3):
    update(torch.randn(4, 3))
"""


def test_sum_walked_again_in_the_loop_is_still_reported():
    assert codes(REWALK) != []


SHAPES = """
import torch
import torch.nn as nn

class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(4, 2)

    def act(self, s, flag):
        p = torch.softmax(self.l(s), -1)
        if flag:
            return p.detach().numpy()
        a = p.argmax()
        return a.detach().numpy(), p[a].log(), {third}
"""


def test_graph_free_branch_does_not_hide_the_tuple_shape():
    for third, expected in (("p.sum()", [False, True, True]), ("0", [False, True, False])):
        src = textwrap.dedent(SHAPES.format(third=third))
        ctx = FileContext(cst.parse_module(src), "case.py", src)
        fn = ctx.analysis.names.methods[("Actor", "act")]
        assert ctx.analysis.returns_elems(fn) == expected


FORMATTED = """
import torch
import torch.nn as nn

net = nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
losses = []
for step in range(3):
    loss = net(torch.randn(4, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append({kept})
"""


def test_percent_formatted_loss_is_a_string():
    assert codes(FORMATTED.format(kept="'%.4f' % loss")) == []
    assert codes(FORMATTED.format(kept="loss")) == [("AD102", 13)]


SLOTS = """
import torch

class Trainer:
    def __init__(self, model, optimizers):
        self.model = model
        self.optimizers = optimizers

    def _optimize(self, batch, model, optimizer, idx):
        outputs, loss = model.train_step(batch, idx)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        {step}
        return outputs, loss.item()

    def train_step(self, batch):
        {made}
        for idx, optimizer in enumerate(self.optimizers):
            outputs, number = self._optimize(batch, self.model, optimizer, idx)
            outputs_per_optimizer[idx] = outputs
        return outputs_per_optimizer

    def fit(self, loader):
        {kept}
        for batch in loader:
            self.train_step(batch)
"""


def test_slot_per_optimizer_handed_to_a_step_helper_is_one_calls():
    # the helper steps the optimizer it is handed: the loop goes over optimizers, the list starts each call
    for step in ("optimizer.step()", "scaler.step(optimizer)"):
        src = SLOTS.format(step=step, made="outputs_per_optimizer = [None] * len(self.optimizers)", kept="pass")
        assert codes(src) == []


def test_history_on_self_next_to_the_slots_is_still_reported():
    src = SLOTS.format(step="optimizer.step()", made="outputs_per_optimizer = [None] * len(self.optimizers)",
                       kept="self.history = []")
    src = src.replace("outputs_per_optimizer[idx] = outputs", "outputs_per_optimizer[idx] = outputs\n"
                      "            self.history.append(outputs)")
    assert [c for c, _ in codes(src)] == ["AD101"]
