"""AD104 on a step method whose retained loss leaves by its return
(analysis/dropped_results.py): callers in other project files that unpack
the result and only print or log it drop the graph; one that builds a loss
from what it unpacked, or hands it to any other call, may backward it."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

MODEL = """
import torch


class Critic:
    def __init__(self, gen, critic):
        self.gen, self.critic = gen, critic
        self.opt = torch.optim.Adam(critic.parameters())

    def train_critic(self, real, noise):
        fake = self.gen(noise)
        w_dist = self.critic(real).mean() - self.critic(fake).mean()
        loss = -w_dist
        self.critic.zero_grad()
        loss.backward(retain_graph=True)
        self.opt.step()
        return loss, w_dist
"""

TRAIN = """
from model import Critic


def train(model, batches, writer, logger):
    for step, (real, noise) in enumerate(batches):
        c_loss, w_dist = model.train_critic(real, noise)
        {use}
"""


def _ad104(tmp_path, use):
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL))
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN).format(use=use))
    path = tmp_path / "model.py"
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


@pytest.mark.parametrize("use", [
    "print('{} {}'.format(step, c_loss), w_dist)",
    "writer.add_scalar('loss/c', c_loss, global_step=step); logger.info('w %s', w_dist)",
    "print(f'{c_loss:.4f}', 'w %.4f' % (w_dist,))",
    "print(c_loss.item(), float(w_dist))",
    "wandb.log({'c': c_loss, 'w': w_dist}, step=step)",
])
def test_unpacked_and_only_logged(tmp_path, use):
    found = _ad104(tmp_path, use)
    assert len(found) == 1 and found[0].fix == "unsafe"
    logged = "drop the result or only print or log it" if "item" not in use else "drop the result:"
    assert "train.py:7" in found[0].message and logged in found[0].message


@pytest.mark.parametrize("use", [
    "(-w_dist).backward()",
    "print(c_loss); history.append(w_dist)",
    "writer.add_scalar('loss/c', c_loss + w_dist, step)",
    "log_all(c_loss, w_dist)",
])
def test_unpacked_and_used(tmp_path, use):
    assert _ad104(tmp_path, use) == []


def test_returned_dict_entries_cut(tmp_path):
    """`out = model.train_critic(...)`, then only `out["loss"].item()`."""
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL).replace("return loss, w_dist",
                                                                      'return {"loss": loss, "w": w_dist}'))
    for use, n in (("print(out['loss'].item(), out['w'].item())", 1), ("out['w'].backward()", 0),
                   ("total = out['loss']; print(total.item())", 0)):
        (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN).replace(
            "c_loss, w_dist = model", "out = model").format(use=use))
        path = tmp_path / "model.py"
        findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
        assert len([f for f in findings if f.code == "AD104"]) == n, use


def test_unpacked_into_attributes(tmp_path):
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL))
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN).replace(
        "c_loss, w_dist = model", "model.c_loss, w_dist = model").format(use="print(w_dist)"))
    path = tmp_path / "model.py"
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    assert [f for f in findings if f.code == "AD104"] == []
