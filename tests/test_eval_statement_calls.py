"""An evaluation function called as a bare statement (`test(epoch)`): its
result is dropped, so no caller backwards it (analysis.eval_loops)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

SCRIPT = """
import torch

def train(epoch):
    for x in data:
        optimizer.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()

def test(epoch):
    test_loss = 0
    for x in data:
        loss = model(x).pow(2).mean()
        test_loss += loss
    print(epoch, float(test_loss))

data = [torch.randn(2, 4) for _ in range(3)]
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    train(epoch)
{call}
"""


def _found(call: str):
    src = textwrap.dedent(SCRIPT).replace("{call}", call)
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    found, _, _ = check_source(src, "script.py", rules, Options())
    return [(f.code, f.line, f.fix) for f in found]


def test_statement_call_with_gradients_on_is_reported():
    # unsafe: that no other file calls `test` under no_grad is inferred
    assert _found("    test(epoch)") == [("AD102", 15, "unsafe")]


def test_statement_call_under_no_grad_is_left_alone():
    assert _found("    with torch.no_grad():\n        test(epoch)") == []


def test_result_printed_is_reported():
    assert _found("    print(epoch, test(epoch))") == [("AD102", 15, "unsafe")]


def test_result_passed_on_is_still_not_followed():
    # `report(test(epoch))`: the result goes somewhere the analysis does not follow
    assert _found("    report(test(epoch))") == []


TRAINER = """
import torch

class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def train_epoch(self):
        for x in self.loader:
            self.optimizer.zero_grad()
            loss = self.model(x).pow(2).mean()
            loss.backward()
            self.optimizer.step()

    {deco}def validate(self):
        self.model.eval()
        val_loss = 0
        for x in self.loader:
            loss = self.model(x).pow(2).mean()
            val_loss += loss
        self.model.train()
        print("val", float(val_loss) / len(self.loader))

    def run(self, epochs):
        for epoch in range(epochs):
            self.train_epoch()
            self.validate()
"""


def _trainer(deco: str):
    src = textwrap.dedent(TRAINER).replace("{deco}", deco)
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    found, _, _ = check_source(src, "trainer.py", rules, Options())
    return [(f.code, f.line, f.fix) for f in found]


def test_method_called_as_statement_is_reported():
    assert _trainer("") == [("AD102", 22, "unsafe")]


def test_method_under_no_grad_decorator_is_left_alone():
    assert _trainer("@torch.no_grad()\n    ") == []
