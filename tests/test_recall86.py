"""AD108 recall (session 38, recall86): a loss built before an optimizer step
and backwarded after it, where what the step owns is not written in the file.

- The step applies the gradients of the backward it follows when the clear
  before that backward is the optimizer's or the model's own
  (`model.zero_grad()`): an optimizer over `model.grouped_parameters()` then
  is taken to step what that backward ran through (analysis/step_owners.py).
- A base class of another file that sets `self.X` in its `__init__`
  (`self.critic_optimizer = optimizers["critic"]`) makes `X` an attribute,
  not a method: its role is read from this class's use as for one it sets
  (analysis/base_attrs.py).

Both rest on inference: the findings say so and carry no safe fix."""
import subprocess
import sys
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import by_code

NETS = textwrap.dedent("""
    from torch import nn


    class Converter(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh())
            self.decoder = nn.Linear(8, 6)
            self.classifier = nn.Linear(8, 3)

        def forward(self, x):
            hidden = self.encoder(x)
            return self.decoder(hidden), self.classifier(hidden)

        def grouped_parameters(self):
            return list(self.encoder.parameters()) + list(self.decoder.parameters()), \\
                list(self.classifier.parameters())
""")

SCRIPT = textwrap.dedent("""
    import torch
    import torch.nn.functional as F

    from nets import Converter

    torch.manual_seed(0)
    model = Converter()
    main_params, cls_params = model.grouped_parameters()
    opt_main = torch.optim.Adam(main_params, lr=0.01)
    opt_cls = torch.optim.Adam(cls_params, lr=0.01)
    for it in range(3):
        x = torch.randn(8, 6)
        model.zero_grad()
        recon, logits = model(x)
        loss_main = F.mse_loss(recon, x)
        loss_cls = F.cross_entropy(logits, torch.randint(0, 3, (8,)))
        loss_main.backward(retain_graph=True)
        opt_main.step()
        loss_cls.backward()
        opt_cls.step()
    print("%.6f" % sum(p.sum().item() for p in model.parameters()))
""")

# a trainer class that builds the sibling file's model on `self`; the clear on `self.net`
TRAINER = textwrap.dedent("""
    import torch
    import torch.nn.functional as F

    from nets import Converter


    class Trainer:
        def __init__(self):
            self.net = Converter()
            body, head = self.net.grouped_parameters()
            self.opt_body = torch.optim.SGD(body, lr=0.05)
            self.opt_head = torch.optim.SGD(head, lr=0.05)

        def train_step(self, x, label):
            self.net.zero_grad()
            recon, logits = self.net(x)
            rec_loss = F.mse_loss(recon, x)
            aux_loss = F.cross_entropy(logits, label)
            rec_loss.backward(retain_graph=True)
            self.opt_body.step()
            aux_loss.backward()
            self.opt_head.step()
""")

BASE = textwrap.dedent("""
    class BaseTrainer:
        def __init__(self, generator, critic, optimizers):
            self.generator = generator
            self.critic = critic
            self.generator_optimizer = optimizers["generator"]
            self.critic_optimizer = optimizers["critic"]

        def log(self, value):
            print(value)
""")

SUB = textwrap.dedent("""
    import torch

    from base_trainer import BaseTrainer


    class WGANTrainer(BaseTrainer):
        def train_batch(self, noise, real):
            fake = self.generator(noise)
            score_real = self.critic(real)
            score_fake = self.critic(fake)
            for _ in range(2):
                self.critic_optimizer.zero_grad()
                critic_loss = score_fake.mean() - score_real.mean()
                critic_loss.backward(retain_graph=True)
                self.critic_optimizer.step()
            self.generator_optimizer.zero_grad()
            gen_loss = -score_fake.mean()
            gen_loss.backward()
            self.generator_optimizer.step()
            self.log(gen_loss.item())
""")


def _ad108(tmp_path, files, main):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    path = tmp_path / main
    found, _, _ = check_source(path.read_text(), str(path), [by_code()["AD108"]], Options())
    return [f for f in found if f.code == "AD108"]


def _lines(found):
    return sorted(f.line for f in found)


def test_model_clear_idiom_sibling_module(tmp_path):
    found = _ad108(tmp_path, {"nets.py": NETS, "train.py": SCRIPT}, "train.py")
    assert _lines(found) == [SCRIPT.splitlines().index("    loss_cls.backward()") + 1]
    msg = found[0].message
    assert "inferred: the parameters of `opt_main` are not known here" in msg and "Not fixed" in msg
    assert found[0].fix == "none"


def test_model_clear_idiom_trainer_method(tmp_path):
    found = _ad108(tmp_path, {"nets.py": NETS, "trainer.py": TRAINER}, "trainer.py")
    assert _lines(found) == [TRAINER.splitlines().index("        aux_loss.backward()") + 1]
    assert "`self.opt_body` are not known here" in found[0].message and found[0].fix == "none"


def test_model_clear_idiom_both_backwards_first(tmp_path):
    src = SCRIPT.replace("    opt_main.step()\n    loss_cls.backward()\n",
                         "    loss_cls.backward()\n    opt_main.step()\n")
    assert _ad108(tmp_path, {"nets.py": NETS, "train.py": src}, "train.py") == []


def test_clear_of_another_module_is_no_idiom(tmp_path):
    # the clear does not cover the model the graph runs: nothing says what `opt_main` applies
    src = SCRIPT.replace("    model.zero_grad()\n", "    other.zero_grad()\n").replace(
        "model = Converter()\n", "model = Converter()\nother = torch.nn.Linear(2, 2)\n")
    assert _ad108(tmp_path, {"nets.py": NETS, "train.py": src}, "train.py") == []


def test_base_class_sets_optimizer_and_critic(tmp_path):
    found = _ad108(tmp_path, {"base_trainer.py": BASE, "train.py": SUB}, "train.py")
    lines = SUB.splitlines()
    assert _lines(found) == [lines.index("            critic_loss.backward(retain_graph=True)") + 1,
                             lines.index("        gen_loss.backward()") + 1]
    for f in found:
        assert "`self.critic_optimizer` is set by `BaseTrainer.__init__` (base_trainer.py)" in f.message
        assert "it steps `self.critic` (paired by name)" in f.message
        assert f.fix in ("none", "unsafe")


def test_base_class_attribute_roles(tmp_path):
    import libcst as cst

    from autodetach.context import FileContext

    (tmp_path / "base_trainer.py").write_text(BASE)
    path = tmp_path / "train.py"
    path.write_text(SUB)
    names = FileContext(cst.parse_module(SUB), str(path)).analysis.names
    assert names.optimizers["self.critic_optimizer"].owns == frozenset({"self.critic"})
    assert names.modules.get("self.critic") == "param"
    assert "self.log" not in names.modules  # a method of the base class, not an attribute it sets


def test_base_class_recomputed_scores_are_clean(tmp_path):
    src = SUB.replace("            critic_loss = score_fake.mean() - score_real.mean()\n",
                      "            critic_loss = self.critic(fake.detach()).mean() - self.critic(real).mean()\n")
    src = src.replace("        gen_loss = -score_fake.mean()\n", "        gen_loss = -self.critic(fake).mean()\n")
    assert _ad108(tmp_path, {"base_trainer.py": BASE, "train.py": src}, "train.py") == []


def test_without_the_base_file_nothing_is_inferred(tmp_path):
    # the base class cannot be read: its attributes may be methods or properties
    assert _ad108(tmp_path, {"train.py": SUB}, "train.py") == []


@pytest.mark.slow
def test_model_clear_idiom_fails_at_run_time(tmp_path):
    (tmp_path / "nets.py").write_text(NETS)
    (tmp_path / "train.py").write_text(SCRIPT)
    done = subprocess.run([sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode != 0 and "modified by an inplace operation" in done.stderr
