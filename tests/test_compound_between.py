"""A compound statement (an `if`, a `for`) between a value built before a loop
and the loop: the AD107 helpers that scan the statements in between read only
simple statements' parts (an internal error in rule AD107 on a PPO agent)."""
import textwrap

import autodetach

SRC = """
import torch

w = torch.nn.Parameter(torch.randn(4, 1))
opt = torch.optim.SGD([w], lr=0.1)
scale = w.norm()
{between}
for i in range(3):
    loss = (torch.randn(2, 4) @ w).pow(2).mean() * scale
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_compound_statement_between_is_no_internal_error():
    for between in ("if scale.item() > 0:\n    print('ok')", "for k in range(2):\n    print(k)",
                    "with torch.no_grad():\n    print(scale)"):
        found = autodetach.check_code(textwrap.dedent(SRC.format(between=between)), select=["AD107"])
        assert [(f.code, f.line) for f in found] == [("AD107", 6)], between
