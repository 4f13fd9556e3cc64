"""Precision on unseen code (audit6): two shapes from public repositories.

- dgl-ke's `train_mxnet.py` next to `train_pytorch.py`: an MXNet file (no torch
  import) read as torch; its `loss.backward()` is MXNet's (AD1 rules skip it).
- torchsde's `EMAMetric.step`: `x = x.detach()... if torch.is_tensor(x) else x`;
  the else arm sees only numbers (corpus AD102/ok_ema_metric_tensor_test).
"""
import os
import textwrap

import autodetach

OTHER = """
{imports}
from models import build


def train(args):
    model, trainer = build(args)
    logs = []
    for step in range(args.steps):
        with autograd.record():
            loss = model(step)
        loss.backward()
        trainer.step(1)
        logs.append(loss)
    print(sum(logs) / len(logs))
"""


def _codes(src):
    return [f.code for f in autodetach.check_code(textwrap.dedent(src), select=["AD1"])]


def test_a_file_of_another_autodiff_library_is_not_read_as_torch():
    assert _codes(OTHER.format(imports="from mxnet import autograd")) == []
    assert _codes(OTHER.format(imports="import jax\nfrom mxnet import autograd")) == []
    # the same loop with the models from a sibling module and no framework named: still torch's
    assert _codes(OTHER.format(imports="import autograd")) == ["AD102"]
    # torch named too: torch's tensors may be what it keeps
    assert _codes(OTHER.format(imports="import torch\nfrom mxnet import autograd")) == ["AD102"]

