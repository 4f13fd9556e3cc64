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
