"""A method of the class handed a loss that adds it into `self` state
(`self._update_loss_log(name, loss)` doing `self.loss_log[name] = self.loss_log.get(name, 0.0) + loss`):
walked at the call (self_storage.arg_log_helper), also through the methods that reach it, and
what an arm that returns stored on `self` outlives the inlined call (flow._keep_returned_state)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _found(src: str, codes=("AD101", "AD102")):
    rules = [r for r in all_rules() if r.code in codes]
    found, _, _ = check_source(textwrap.dedent(src), "train.py", rules, Options())
    return [(f.code, f.line, f.fix, f.message) for f in found]


SOLVER = """
import torch

class Solver:
    def __init__(self, model):
        self.model = model
        self.loss_log = {{}}

    def _update_loss_log(self, name, loss):
        {store}

    def _term(self, x):
        if not isinstance(x, list):
            loss = self.model(x).pow(2).mean()
            self._update_loss_log("pde", {arg})
            return loss
        raise ValueError("x")

    def total(self, x):
        out = 0.0
        out += self._term(x)
        return out

    def fit(self, optimizer, loader, epochs):
        for epoch in range(epochs):
            for x in loader:
                optimizer.zero_grad()
                loss = self.total(x)
                loss.backward()
                optimizer.step()
            print(self.loss_log)
            {extra}

model = torch.nn.Linear(3, 1)
Solver(model).fit(torch.optim.SGD(model.parameters(), lr=0.1), [torch.randn(4, 3)], 2)
"""


def _solver(store="self.loss_log[name] = self.loss_log.get(name, 0.0) + loss", arg="loss", extra=""):
    return _found(SOLVER.format(store=store, arg=arg, extra=extra))


def test_a_helper_adding_its_argument_into_self_state_is_reported_at_its_store():
    found = _solver()
    assert [(code, line, fix) for code, line, fix, _ in found] == [("AD102", 10, "safe")]
    assert [line for _, line, _, _ in _solver(store="self.total_loss += loss")] == [10]
    assert [line for _, line, _, _ in _solver(store="self.history.append(loss)")] == [10]


def test_what_it_is_handed_decides():
    assert _solver(arg="loss.item()") == []
    assert _solver(arg="loss.detach()") == []


def test_a_store_of_the_latest_value_is_no_add():
    assert _solver(store="self.last = loss") == []


def test_a_helper_shared_by_several_calls_gives_an_unsafe_fix():
    found = _solver(extra='self._update_loss_log("other", 0.0)')
    assert [(code, line, fix) for code, line, fix, _ in found] == [("AD102", 10, "unsafe")]
    assert "is called at 2 places" in found[0][3]
