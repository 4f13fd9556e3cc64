"""A value out of a module's method whose class the file does not have
(`loss, logs = model.train_step(batch)`) may be a dict or a number: a
`.detach()` of it is offered as unsafe, saying why (plain_values.unseen_method)."""
import textwrap

import autodetach

LOOP = """
import torch
{model}
optimizer = torch.optim.Adam(model.parameters())
history = []
for batch in torch.randn(10, 4, 3):
    loss, logs = model.train_step(batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    history.append({stored})
"""

UNSEEN = "from models import Net\nmodel = Net()"
SEEN = """
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 1)

    def train_step(self, x):
        out = self.lin(x)
        return out.pow(2).mean(), out.sigmoid().mean()

model = Net()"""


def findings(model, stored="logs"):
    return autodetach.check_code(textwrap.dedent(LOOP.format(model=model, stored=stored)), select=["AD1"])


def test_unseen_method_result_gets_an_unsafe_fix_that_says_why():
    found = findings(UNSEEN)
    assert [(f.code, f.fix) for f in found] == [("AD101", "unsafe")]
    assert "`model.train_step(...)` is a method of a class not followed" in found[0].message


def test_method_of_a_class_in_the_file_keeps_its_safe_fix():
    found = findings(SEEN)
    assert [(f.code, f.fix) for f in found] == [("AD101", "safe")]


def test_a_forward_call_is_not_an_unseen_method():
    src = LOOP.replace("loss, logs = model.train_step(batch)", "logs = model(batch)\n    loss = logs.sum()")
    found = autodetach.check_code(textwrap.dedent(src.format(model=UNSEEN, stored="logs")), select=["AD1"])
    assert found and all("not followed" not in f.message for f in found)


COUNT = """
import torch
from models import Net

model = Net()
optimizer = torch.optim.Adam(model.parameters())
batch_size = model.micro_batch_size()
seen = 0
for batch in torch.randn(10, 4, 3):
    loss = model(batch).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    seen += batch_size * 2
"""


def test_operand_bound_from_an_unseen_method_makes_the_fix_unsafe():
    # `model.micro_batch_size()` returns an int: `.detach()` of the count would raise
    found = autodetach.check_code(textwrap.dedent(COUNT), select=["AD1"])
    assert all(f.fix != "safe" for f in found)
    assert all("micro_batch_size" in f.message for f in found if f.fix == "unsafe")


MODULES = """
import torch
import torch.nn as nn
import learn2learn as l2l


def adapt(clone, x, lr):
    loss = clone(x).pow(2).mean()
    grads = torch.autograd.grad(loss, list(clone.parameters()), create_graph=True)
    return l2l.algorithms.maml.maml_update(clone, lr, grads)


policy = nn.Linear(3, 1)
opt = torch.optim.SGD(policy.parameters(), lr=0.1)
kept = []
for step in range(3):
    clone = l2l.clone_module(policy)
    clone = adapt(clone, torch.randn(4, 3), 0.1)
    kept.append(clone)
    loss = clone(torch.randn(4, 3)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_a_name_used_as_a_module_is_no_tensor_to_detach():
    import libcst as cst

    from autodetach.analysis.plain_values import not_tensor
    from autodetach.context import FileContext

    text = textwrap.dedent(MODULES)
    ctx = FileContext(cst.parse_module(text), "m.py", text)
    kept = [n for n in ctx.module.body[-1].body.body if "append" in ctx.code(n)][0]
    arg = kept.body[0].value.args[0].value
    assert ctx.code(arg).strip() == "clone" and not_tensor(ctx, arg)
    loss = [n for n in ctx.module.body[-1].body.body if "loss =" in ctx.code(n)][0].body[0].targets[0].target
    assert not not_tensor(ctx, loss)
