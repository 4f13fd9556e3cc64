"""Precision on unseen code (audit4): three shapes from public repositories.

- Opacus: `model, optimizer, loader = engine.make_private(module=model, ...)`
  rebinds the names it is given; the loader got the model's graph (AD107).
- IRIS: the parts of a loss object out of a module method not followed are
  numbers; `.detach()` of them was offered as safe (AD102).
- mtrl GradNorm: dropping a retain was offered as safe while a later
  `autograd.grad` of a value the analysis sees no graph in walks it again (AD104).
"""
import os
import textwrap

import autodetach
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

PRIVATE = """
import torch
import torch.nn as nn
from opacus import PrivacyEngine

model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(8, 4), torch.randn(8, 2)))
engine = PrivacyEngine()
{targets} = engine.make_private(module=model, optimizer=optimizer, data_loader={loader})
for x, y in train_loader:
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
"""


def _private(targets, loader="train_loader"):
    return autodetach.check_code(textwrap.dedent(PRIVATE.format(targets=targets, loader=loader)), select=["AD1"])


def test_objects_handed_back_under_their_own_names_carry_no_graph():
    assert _private("model, optimizer, train_loader") == []


def test_a_result_bound_to_a_new_name_is_still_read_as_the_call_s():
    # `batches` is not a name the call was given: what it holds is not known to be the loader
    found = _private("model, optimizer, batches")
    assert found == [] or all(f.code != "AD107" or "batches" not in f.message for f in found)
    src = PRIVATE.format(targets="model, optimizer, train_loader", loader="train_loader")
    src = src.replace("optimizer=optimizer, ", "")  # no optimizer among the names rebound: not audit4's shape,
    # but a loader a settings call hands out, iterated by the loop (audit5, analysis/iterated_sources.py)
    assert [f.code for f in autodetach.check_code(textwrap.dedent(src), select=["AD1"])] == []
    # the call's result read directly, not drawn from by a `for`: still a graph made before the loop
    direct = src.replace("for x, y in train_loader:", "x, y = train_loader\nfor _ in range(3):")
    assert [f.code for f in autodetach.check_code(textwrap.dedent(direct), select=["AD1"])] == ["AD107"]


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))


def _check(tmp_path, name):
    text = (tmp_path / name).read_text()
    found, _, _ = check_source(text, str(tmp_path / name), all_rules(), Options())
    return [f for f in found if f.code.startswith("AD1")]


PARTS = """
    class LossWithParts:
        def __init__(self, **parts):
            self.loss_total = sum(parts.values())
            self.parts = {name: value.item() for name, value in parts.items()}
"""

TRAINER = """
    from collections import defaultdict

    import torch
    import torch.nn as nn


    class Trainer:
        def train_component(self, component: nn.Module, optimizer: torch.optim.Optimizer, steps: int):
            totals = defaultdict(float)
            for _ in range(steps):
                optimizer.zero_grad()
                losses = component.compute_loss(torch.randn(8, 4))
                losses.loss_total.backward()
                for name, value in losses.parts.items():
                    totals[name] += value / steps
                torch.nn.utils.clip_grad_norm_(component.parameters(), 10.0)
                optimizer.step()
            return dict(totals)
"""


def test_parts_of_an_unseen_method_s_result_get_no_safe_detach(tmp_path):
    _write(tmp_path / "losses.py", PARTS)
    _write(tmp_path / "trainer.py", TRAINER)
    found = _check(tmp_path, "trainer.py")
    assert [(f.code, f.fix) for f in found] == [("AD102", "unsafe")]
    assert "`component.compute_loss(...)` is a method of a class not followed" in found[0].message


def test_a_loop_variable_of_a_literal_list_keeps_its_safe_fix():
    src = """
    import torch
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    total = 0
    for x in torch.randn(5, 2, 3):
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss
    """
    found = autodetach.check_code(textwrap.dedent(src), select=["AD1"])
    assert [(f.code, f.fix) for f in found] == [("AD102", "safe")]


BASE = """
    import torch


    class MultiTaskAgent:
        def __init__(self, num_tasks):
            self.num_tasks = num_tasks

        def per_task_loss(self, loss, task_index):
            return torch.zeros(self.num_tasks).scatter_add(0, task_index, loss)
"""

GRADNORM = """
    import torch

    from base import MultiTaskAgent


    class GradNormAgent(MultiTaskAgent):
        def _new_weights(self):
            task_weights = torch.nn.Parameter(torch.ones(self.num_tasks))
            return task_weights, torch.optim.SGD([task_weights], lr=0.01)

        def compute_gradient(self, loss, task_index, shared):
            task_loss = self.per_task_loss(loss, task_index)
            task_weights, opt = self._new_weights()
            weighted = torch.mul(task_weights, task_loss)
            weighted.sum().backward(retain_graph=True)
            grads = [torch.autograd.grad(task_loss[i], shared, retain_graph=True) for i in range(self.num_tasks)]
            return grads
"""


def test_a_retain_before_a_grad_of_a_value_without_a_seen_graph_is_no_safe_drop(tmp_path):
    _write(tmp_path / "base.py", BASE)
    _write(tmp_path / "gradnorm.py", GRADNORM.replace(
        "grads = [torch.autograd.grad(task_loss[i], shared, retain_graph=True) for i in range(self.num_tasks)]",
        "grads = []\n"
        "            for i in range(self.num_tasks):\n"
        "                grads.append(torch.autograd.grad(task_loss[i], shared, retain_graph=True))"))
    found = [f for f in _check(tmp_path, "gradnorm.py") if f.code == "AD104"]
    assert [f.fix for f in found] == ["unsafe"]
    assert "backwards a value whose graph is not seen here" in found[0].message
