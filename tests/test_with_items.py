"""`with amp.scale_loss(loss, optimizer) as scaled_loss:` (apex): the value the
`with` item yields hangs from its arguments, so `scaled_loss.backward()`
backwards `loss`, and the list it was summed from (sha-rnn's `losses`, reset
after every backward) keeps no graph across backwards."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

SCRIPT = """
import functools

import torch
import torch.nn as nn
from apex import amp

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model, optimizer = amp.initialize(model, optimizer)
losses, hist = [], []
for batch in range(1, 9):
    raw_loss = model(torch.randn(4, 3)).pow(2).mean()
    losses.append(raw_loss)
    {extra}
    if batch % 4 == 0:
        loss = {total}
        with amp.scale_loss(loss, optimizer) as scaled_loss:
            scaled_loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        {reset}
"""


def _ad102(total, reset, extra="pass"):
    text = textwrap.dedent(SCRIPT.format(total=total, reset=reset, extra=extra))
    findings, _, _ = check_source(text, "main.py", all_rules(), Options())
    return [(f.line, f.fix) for f in findings if f.code == "AD102"]


def test_a_window_summed_into_the_scaled_loss_is_not_reported():
    assert _ad102("functools.reduce(lambda x, y: x + y, losses)", "losses = []") == []
    assert _ad102("sum(losses)", "losses = []") == []


def test_a_history_of_the_same_losses_is_still_reported():
    # `hist` is never summed into a backward, nor reset: every batch's graph stays alive
    assert [line for line, _ in _ad102("sum(losses)", "losses = []", extra="hist.append(raw_loss)")] == [15]
