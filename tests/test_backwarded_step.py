"""A step method's own backward proves what it returns: `loss = mse(...) +
penalty(model)` backwarded in `train_step` carries a graph, whatever the
penalty's code is, both when the method is walked (backwarded.proven_bindings
on a function body) and when it is read from a summary of another file."""
import libcst as cst

from autodetach.analysis.backwarded import proven_bindings
from autodetach.analysis.summaries import summarize
from autodetach.engine import check_code


def _body(src):
    return cst.parse_module(src).body[0].body


def _proven_keys(src):
    stmts = proven_bindings(_body(src))[0]
    return {key for _, key in stmts}


def test_one_binding_before_the_backward_in_a_function_is_proven():
    assert _proven_keys(
        "def step(self, x):\n    loss = f(x) + g(x)\n    loss.backward()\n    return loss\n") == {"loss"}


def test_scaled_and_accelerator_backwards_prove_too():
    assert _proven_keys("def s(x):\n    loss = f(x)\n    scaler.scale(loss).backward()\n") == {"loss"}
    assert _proven_keys("def s(x):\n    loss = f(x)\n    accelerator.backward(loss)\n") == {"loss"}


def test_a_name_bound_twice_or_after_the_backward_is_not_proven():
    assert _proven_keys("def s(x):\n    loss = f(x)\n    loss = g(loss)\n    loss.backward()\n") == set()
    assert _proven_keys("def s(loss):\n    loss.backward()\n    loss = f(loss)\n    return loss\n") == set()


def test_summary_of_a_step_returning_its_backwarded_loss_is_graph():
    src = ("from ext import penalty\nimport torch.nn.functional as F\n"
           "class T:\n    def step(self, x, y):\n        loss = F.mse_loss(self.net(x), y) + penalty(self.net)\n"
           "        loss.backward()\n        return loss\n"
           "    def step_item(self, x, y):\n        loss = F.mse_loss(self.net(x), y) + penalty(self.net)\n"
           "        loss.backward()\n        loss = loss.item()\n        return loss\n")
    table = summarize(src)
    assert table["T.step"].result == "graph"
    assert table["T.step_item"].result != "graph"


def test_a_penalty_summed_over_parameters_from_zero_carries_a_graph():
    src = ("def l2(model, w=1e-3):\n    total = 0\n    for p in model.parameters():\n"
           "        total = total + p.pow(2).sum()\n    return w * total\n"
           "def count(model):\n    n = 0\n    for p in model.parameters():\n        n = n + p.numel()\n    return n\n")
    table = summarize(src)
    assert table["l2"].result == "graph"
    assert table["count"].result != "graph"


TRAINER = '''
import torch.nn.functional as F
from extlib import penalty


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.total = 0

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        loss = F.mse_loss(self.model(x), y) + penalty(self.model)
        loss.backward()
        self.optimizer.step()
        return loss

    def train_epoch(self, batches):
        for x, y in batches:
            loss = self.train_step(x, y)
            self.total += {acc}
'''


def test_a_trainer_keeping_a_step_loss_with_an_unseen_term_is_reported():
    codes = [f.code for f in check_code(TRAINER.format(acc="loss"))]
    assert "AD102" in codes
    assert "AD102" not in [f.code for f in check_code(TRAINER.format(acc="loss.item()"))]


def _loop_proven(src):
    stmts, _, holders = proven_bindings(_body(src))[:3]
    return {key for _, key in stmts}, {key for _, key in holders}


def test_in_a_loop_the_last_straight_line_binding_before_the_backward_is_proven():
    # `losses = dict()`, then the helper's dict: the backwarded element is the helper's
    src = ("def train(self):\n    for x in data:\n        losses = dict()\n"
           "        losses, extra = self.step(losses, x)\n        losses['total'].backward()\n"
           "        s += losses['total']\n")
    assert _loop_proven(src) == ({"losses"}, {"losses"})


def test_in_a_loop_a_binding_under_an_if_or_after_a_backward_is_not_proven():
    under_if = ("def train(self):\n    for x in data:\n        losses = f(x)\n"
                "        if cond:\n            losses = g(x)\n        losses['total'].backward()\n")
    assert _loop_proven(under_if) == (set(), set())
    between = ("def train(self):\n    for x in data:\n        loss = f(x)\n        loss.backward()\n"
               "        loss = g(x)\n        loss.backward()\n")
    assert _loop_proven(between) == (set(), set())
