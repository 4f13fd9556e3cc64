"""A loop over the losses of one forward that steps inside the loop
(analysis/loss_loop_steps.py), reported by AD108 without a fix."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

PER_MODULE = """
import torch

def train(model, optimizer, loader):
    for img, label in loader:
        loss = torch.mean(model(img, label), 0)
        for idx, cur_losses in enumerate(loss):
            model.zero_grad()
            if idx == len(loss) - 1:
                cur_losses.backward()
            else:
                cur_losses.backward(retain_graph=True)
            optimizer[idx].step()
"""


def _ad108(src):
    findings, _, _ = check_source(textwrap.dedent(src), "case.py", all_rules(), Options())
    return [f for f in findings if f.code == "AD108"]


def test_step_indexed_by_the_loop_after_a_retained_backward():
    found = _ad108(PER_MODULE)
    assert [f.line for f in found] == [12]
    assert "backward every loss first" in found[0].message and found[0].fix == "none"


def test_optimizer_zipped_with_the_losses():
    found = _ad108("""
        def update(losses, opts):
            for i, (o, loss) in enumerate(zip(opts, losses)):
                o.zero_grad()
                loss.backward(retain_graph=True if i < len(opts) - 1 else False)
                o.step()
        """)
    assert [f.line for f in found] == [5]


def test_steps_after_the_loop_are_fine():
    assert not _ad108(PER_MODULE.replace("            optimizer[idx].step()\n", "")
                      + "        for opt in optimizer:\n            opt.step()\n")


def test_no_retain_means_no_shared_graph():
    assert not _ad108(PER_MODULE.replace("cur_losses.backward(retain_graph=True)", "cur_losses.backward()"))
    assert not _ad108(PER_MODULE.replace("retain_graph=True", "retain_graph=False"))


def test_scheduler_step_is_not_an_optimizer_step():
    assert not _ad108(PER_MODULE.replace("optimizer[idx].step()", "scheduler[idx].step()"))


def test_backward_of_a_loss_computed_in_the_loop_is_not_this_shape():
    assert not _ad108("""
        import torch.nn.functional as F

        def train(model, opt, loader):
            for x, y in loader:
                loss = F.mse_loss(model(x), y)
                opt.zero_grad()
                loss.backward(retain_graph=True)
                opt.step()
        """)
