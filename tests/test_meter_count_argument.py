"""`meter.append(loss, count=batch_size)` of a meter the analysis cannot read: the
value detached is the argument that brings the graph, not the last one (a count)."""
import textwrap

import autodetach

SRC = """
import torch
from monai.metrics import CumulativeAverage

def train(model, loader, optimizer):
    run_loss = CumulativeAverage()
    for data, target in loader:
        loss = torch.nn.functional.mse_loss(model(data), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        batch_size = data.shape[0]
        run_loss.append({args})
    return run_loss.aggregate()
"""


def test_the_loss_is_detached_not_the_count():
    new, findings = autodetach.fix_code(textwrap.dedent(SRC.format(args="loss, count=batch_size")),
                                        select=["AD102"], unsafe=True)
    assert [f.code for f in findings] == ["AD102"]
    assert "run_loss.append(loss.detach(), count=batch_size)" in new


def test_a_count_given_first_is_left_alone():
    new, findings = autodetach.fix_code(textwrap.dedent(SRC.format(args="batch_size, loss")),
                                        select=["AD102"], unsafe=True)
    assert [f.code for f in findings] == ["AD102"]
    assert "run_loss.append(batch_size, loss.detach())" in new
