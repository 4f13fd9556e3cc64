"""Running loss totals of a validation pass run with gradients on (issue 8).

Two questions the analysis could not answer before:
- a value that went through code it cannot see (a callable parameter, an
  activation alias) and then through a module the optimizer steps and the
  training backward walks carries that module's graph whatever the unseen
  code returned (analysis/sibling_evals.trained_modules, flow._uncertain_below);
- `total = total + err` is the same running sum as `total += err`: an
  evaluation loop's sum written out counts, whatever its name, when its term is
  a loss or a whole reduction of an error (sibling_evals.rebound_sum).
"""
import os
import textwrap

from autodetach.engine import Options, check_source
from autodetach.findings import UNSAFE
from autodetach.registry import all_rules


def _ad102(tmp_path, text, name="train.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    os.utime(path, ns=(1, 1))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD102"]


# a training method and a validation loop in the epoch loop; `{act}` may be unseen
TRAINER = """
import torch
from torch import nn


class Trainer:
    def __init__(self, hidden, act):
        self.act = act
        self.hidden = hidden

    def fit(self, batches, valid, epochs, squash):
        body = nn.Linear(3, self.hidden)
        top = nn.Linear(self.hidden, 1)
        opt = torch.optim.SGD([{{"params": body.parameters()}}, {{"params": top.parameters()}}], lr=0.1)
        for epoch in range(epochs):
            for x, y in batches:
                mid = squash(body(x))
                cost = ((top(mid) - y) ** 2).mean()
                opt.zero_grad()
                cost.backward()
                opt.step()
            if epoch % 3 == 0:
                {keep} = 0.0
{guard}{pad}                for x, y in valid:
{pad}                    mid = squash(body(x))
{pad}                    out = top(mid)
{pad}                    {keep} = {keep} + {term}
                print("valid %.4f" % ({keep} / len(valid)))
"""


def _trainer(keep="valid_cost", term="((out - y) ** 2).mean()", no_grad=False):
    guard = "                with torch.no_grad():\n" if no_grad else ""
    return TRAINER.format(keep=keep, term=term, guard=guard, pad="    " if no_grad else "")


def test_unseen_callable_then_stepped_module_reported(tmp_path):
    found = _ad102(tmp_path, _trainer())
    assert len(found) == 1 and "valid_cost" in found[0].message
    assert "gradients on" in found[0].message
    # `squash`, a parameter called on tensors, is taken for a module: the fix stays unsafe for it
    assert found[0].fix == UNSAFE and "`squash` is a module" in found[0].message


def test_unseen_callable_then_stepped_module_under_no_grad_left_alone(tmp_path):
    assert _ad102(tmp_path, _trainer(no_grad=True)) == []


def test_rebound_error_total_with_any_name_reported(tmp_path):
    # `score = score + (out - y).abs().mean()`: a whole reduction of the output's error
    found = _ad102(tmp_path, _trainer(keep="score", term="(out - y).abs().mean()"))
    assert len(found) == 1 and "score" in found[0].message


def test_rebound_number_total_left_alone(tmp_path):
    assert _ad102(tmp_path, _trainer(keep="score", term="(out - y).abs().mean().item()")) == []


def test_rebound_statistic_that_is_no_error_left_alone(tmp_path):
    # a mean of the output alone is no loss and no error: not this shape (logged_stats asks of it)
    assert _ad102(tmp_path, _trainer(keep="score", term="out.mean() * 0 + 1.0")) == []


FROZEN = """
import torch
from torch import nn


def run(encoder, head, cut_fn, batches, valid):
    opt = torch.optim.Adam(encoder.parameters(), lr=0.01)
    for epoch in range(3):
        for x, y in batches:
            err = nn.functional.mse_loss(encoder(x), y)
            opt.zero_grad()
            err.backward()
            opt.step()
        val_loss = 0.0
        for x, y in valid:
            feats = cut_fn(encoder(x))
            pred = {head}(feats)
            val_loss = val_loss + nn.functional.mse_loss(pred, y[:, :1])
        print(val_loss)
"""


def test_unseen_callable_then_module_no_optimizer_steps_left_alone(tmp_path):
    # `head` is not stepped here (it may be frozen) and `cut_fn` may detach: nothing proves a graph
    assert _ad102(tmp_path, FROZEN.format(head="head")) == []


def test_unseen_callable_then_stepped_module_in_a_function_reported(tmp_path):
    # the same loop, the stepped `encoder` applied after the unseen call
    found = _ad102(tmp_path, FROZEN.format(head="encoder"))
    assert len(found) == 1 and "val_loss" in found[0].message


SCRIPT = """
import torch
from torch import nn

net = nn.Sequential(nn.Linear(3, 8), nn.ReLU())
out_layer = nn.Linear(8, 1)
opt = torch.optim.Adam(list(net.parameters()) + list(out_layer.parameters()))
data = [(torch.randn(2, 3), torch.randn(2, 1)) for _ in range(5)]
for epoch in range(4):
    for x, y in data:
        err = nn.functional.l1_loss(out_layer(net(x)), y)
        opt.zero_grad()
        err.backward()
        opt.step()
    {head}
    for x, y in data:
        err = nn.functional.l1_loss(out_layer(net(x)), y)
        running = running + err
    print(float(running))
"""


def test_script_running_sum_of_loss_reported(tmp_path):
    found = _ad102(tmp_path, SCRIPT.format(head="running = 0.0"))
    assert len(found) == 1 and "running" in found[0].message


def test_script_running_sum_backwarded_later_left_alone(tmp_path):
    # the sum is a loss of its own, backwarded after the loop: gradient accumulation
    text = SCRIPT.format(head="running = 0.0").replace("    print(float(running))",
                                                       "    opt.zero_grad()\n    running.backward()\n    opt.step()")
    assert _ad102(tmp_path, text) == []


def test_training_loop_sum_written_out_keeps_its_rule(tmp_path):
    # in a training loop `epoch_err = epoch_err + err` (a name of no loss) stays AD101's, as on main
    text = """
    import torch
    from torch import nn
    net = nn.Linear(4, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(3):
        epoch_err = 0.0
        for i in range(4):
            err = nn.functional.mse_loss(net(torch.randn(2, 4)), torch.zeros(2, 1))
            opt.zero_grad()
            err.backward()
            opt.step()
            epoch_err = epoch_err + err
        print(float(epoch_err))
    """
    assert _ad102(tmp_path, text) == []
    path = tmp_path / "train.py"
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    assert [f.code for f in findings if f.code.startswith("AD10")] == ["AD101"]
