"""An evaluation loop beside the training loop, with gradients on and no
backward: its loss sum keeps every batch's graph (analysis.sibling_evals)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

SCRIPT = """
import torch
from helpers import apply_update, evaluating

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
other = torch.nn.Linear(4, 1)
data = [torch.randn(2, 4) for _ in range(3)]
for epoch in range(2):
    for x in data:
        optimizer.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
    val_loss = 0
{loop}
    print(epoch, val_loss / len(data))
"""

PLAIN = """
for x in data:
    val_loss += model(x).pow(2).mean()
"""


def _found(loop: str, after: str = ""):
    src = textwrap.dedent(SCRIPT).replace("{loop}", textwrap.indent(textwrap.dedent(loop).strip("\n"), "    "))
    src += after
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    found, _, _ = check_source(src, "script.py", rules, Options())
    return [(f.code, f.line, f.fix, f.message) for f in found]


def test_eval_loop_sum_reported_with_a_safe_fix():
    found = _found(PLAIN)
    assert [(c, line, fix) for c, line, fix, _ in found] == [("AD102", 17, "safe")]
    assert "runs with gradients on" in found[0][3]


def test_eval_loop_under_no_grad_is_silent():
    assert _found("""
        with torch.no_grad():
            for x in data:
                val_loss += model(x).pow(2).mean()
    """) == []


def test_grad_switched_off_by_a_statement_is_silent():
    assert _found("torch.set_grad_enabled(False)\n" + PLAIN + "torch.set_grad_enabled(True)\n") == []


def test_module_the_training_does_not_backward_is_silent():
    assert _found("""
        for x in data:
            val_loss += other(x).pow(2).mean()
    """) == []


def test_sum_handed_to_code_not_seen_is_silent():
    # `apply_update` (another file) may backward it
    assert _found(PLAIN, "    apply_update(val_loss, optimizer)\n") == []


def test_sum_backwarded_after_the_loop_is_silent():
    assert _found(PLAIN, "    val_loss.backward()\n") == []


def test_loop_inside_a_project_context_manager_is_silent():
    # `evaluating` (another file) may turn gradients off; `open` does not
    inner = "\n".join("    " + line for line in PLAIN.strip("\n").split("\n"))
    assert _found("with evaluating(model):\n" + inner) == []
    found = _found("with open('log.txt', 'a') as fh:\n" + inner)
    assert [c for c, _, _, _ in found] == ["AD102"]
