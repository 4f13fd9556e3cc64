"""Precision on unseen code (audit6): three shapes from public repositories.

- dgl-ke's `train_mxnet.py` next to `train_pytorch.py`: an MXNet file (no torch
  import) read as torch; its `loss.backward()` is MXNet's (AD1 rules skip it).
- torchsde's `EMAMetric.step`: `x = x.detach()... if torch.is_tensor(x) else x`;
  the else arm sees only numbers (corpus AD102/ok_ema_metric_tensor_test).
- torchsde's `sde_gan.py`: data simulated before the loop by a module class of
  the file that registers buffers only; read as trained weights it made an
  AD107 (corpus AD107/ok_buffer_module_data).
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


def _corpus(name):
    return open(os.path.join(os.path.dirname(__file__), "..", "corpus", "AD107", name)).read()


def test_a_module_class_holding_buffers_only_has_no_parameters():
    src = _corpus("ok_buffer_module_data.py")
    assert _codes(src) == []
    # the same class with a learned drift: the simulated data hangs from its parameter
    learned = src.replace('self.register_buffer("theta", torch.as_tensor(theta))',
                          "self.theta = nn.Parameter(torch.as_tensor(theta))")
    assert learned != src and "AD107" in _codes(learned)
    # a value handed in may be a module: not known to hold buffers only
    handed = src.replace("self.dt = 0.1", "self.dt = mu")
    assert handed != src and "AD107" in _codes(handed)
