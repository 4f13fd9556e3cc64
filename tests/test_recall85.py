"""Issue 8 (AD104 recall on real code, session 38).

An explainer's last walk (analysis/hooked_explainers.py): a method that builds
its graph anew from a model it holds, walks it a last time with
retain_graph=True, reads it afterwards only through cuts, returns none of it
and keeps it only in forward-hook attributes that each call replaces (and
nothing else reads) retains for nothing; unsafe, the model handed in is taken
to keep nothing between calls.

A store into the caller's object under a test opposite to the backward's
(`if not learn:` vs `if learn and ...`) keeps nothing of the retained graph
(analysis/opposite_guards.py)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _found(src: str, path: str):
    rules = [r for r in all_rules() if r.code == "AD104"]
    found, _, _ = check_source(textwrap.dedent(src), path, rules, Options())
    return [(f.line, f.fix, f.message) for f in found]


def _write(tmp_path, files: dict):
    for name, src in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(src))
    return tmp_path


EXPLAINER = """
import torch


class {cls}(object):
    def __init__(self, net, layer):
        self.net = net
        self.{attr} = None
        layer.register_forward_hook(self.{hook})

    def {hook}(self, module, inputs, output):
        self.{attr} = output

    def {method}(self, images, label):
        scores = self.net(images)
        self.net.zero_grad()
        top = scores[:, label].sum()
        grads = torch.autograd.grad(top, self.{attr}, retain_graph=True)[0]
        heat = (grads * self.{attr}).sum(1).detach()
        return heat.cpu().numpy(), scores.argmax(1)
"""


def test_plain_explainer_last_grad_is_unneeded_and_unsafe(tmp_path):
    src = EXPLAINER.format(cls="Heat", attr="acts", hook="keep", method="explain")
    _write(tmp_path, {"explain/heat.py": src})
    found = _found(src, str(tmp_path / "explain/heat.py"))
    assert len(found) == 1 and found[0][1] == "unsafe"
    assert "forward hooks keep it on `self.acts`" in found[0][2]


def test_renamed_explainer_read_by_a_sibling_module_stays_needed(tmp_path):
    src = EXPLAINER.format(cls="Attribution", attr="hooked", hook="on_forward", method="__call__")
    _write(tmp_path, {"pkg/attrib.py": src, "pkg/run.py": """
        from .attrib import Attribution

        def regularise(explainer, images):
            heat, _ = explainer(images, 0)
            explainer.hooked.pow(2).mean().backward()
        """})
    assert _found(src, str(tmp_path / "pkg/attrib.py")) == []


def test_appending_hook_not_emptied_keeps_the_retain(tmp_path):
    src = """
        import torch


        class Stack:
            def __init__(self, net, layer):
                self.net = net
                self.outs = []
                layer.register_forward_hook(lambda m, i, o: self.outs.append(o))

            def explain(self, x):
                y = self.net(x)
                g = torch.autograd.grad(y.sum(), self.outs[-1], retain_graph=True)[0]
                return g.data
        """
    _write(tmp_path, {"stack.py": src})
    assert _found(src, str(tmp_path / "stack.py")) == []


def test_explainer_storing_the_scores_on_self_keeps_the_retain(tmp_path):
    src = EXPLAINER.format(cls="Heat", attr="acts", hook="keep", method="explain").replace(
        "        self.net.zero_grad()\n", "        self.last = scores\n        self.net.zero_grad()\n")
    _write(tmp_path, {"heat.py": src})
    assert _found(src, str(tmp_path / "heat.py")) == []


def test_a_trainer_method_is_not_an_explainer(tmp_path):
    src = """
        import torch


        class Learner:
            def __init__(self, net):
                self.net = net
                self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

            def grads(self, x):
                out = self.net(x)
                out.sum().backward(retain_graph=True)
                return out.detach()

            def fit(self, x):
                self.grads(x)
                self.opt.step()
        """
    _write(tmp_path, {"learn.py": src})
    assert all("forward hooks" not in m and "anew from" not in m for _, _, m in _found(src, str(tmp_path / "learn.py")))


UPDATE = """
import torch

from .data import unpack


def policy_update(batch, nets, opt, debug, learn=False, step=0):
    state = unpack(batch)
    action = nets["actor"](state)
    loss = -nets["critic"](torch.cat([state, action], 1)).mean()
    if {store_test}:
        debug["action"] = action
    if learn and step % 2 == 0:
        opt.zero_grad()
        loss.backward(retain_graph=True)
        torch.nn.utils.clip_grad_norm_(nets["actor"].parameters(), 1.0)
        opt.step()
    return loss.item()
"""

DATA = """
import torch


def unpack(batch):
    return torch.as_tensor(batch["state"])
"""


def test_store_under_the_opposite_test_keeps_nothing(tmp_path):
    src = UPDATE.format(store_test="not learn")
    _write(tmp_path, {"algo/update.py": src, "algo/data.py": DATA, "algo/__init__.py": ""})
    found = _found(src, str(tmp_path / "algo/update.py"))
    assert [(f[0], f[1]) for f in found] == [(15, "unsafe")]  # the nets are handed in: inferred


def test_store_under_the_same_test_keeps_the_retain(tmp_path):
    for test in ("learn", "step > 3"):
        src = UPDATE.format(store_test=test)
        _write(tmp_path, {"algo/update.py": src, "algo/data.py": DATA, "algo/__init__.py": ""})
        assert _found(src, str(tmp_path / "algo/update.py")) == []


def test_rebound_flag_is_not_a_contradiction(tmp_path):
    src = UPDATE.format(store_test="not learn")
    src = src.replace("    state = unpack", "    learn = bool(step)\n    state = unpack")
    _write(tmp_path, {"algo/update.py": src, "algo/data.py": DATA, "algo/__init__.py": ""})
    assert _found(src, str(tmp_path / "algo/update.py")) == []


def _notebook(tmp_path, cells, name="attack.ipynb"):
    import json

    nb = {"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                     "source": textwrap.dedent(c).strip("\n")} for c in cells],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / name
    path.write_text(json.dumps(nb))
    return path


def _cli(path):
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-m", "autodetach", "--no-cache", "--select", "AD104", "--unsafe-fixes",
                          "--output-format", "json", str(path)], capture_output=True, text=True, env=env,
                         cwd=str(path.parent))
    return json.loads(out.stdout)["findings"]


ATTACK = [
    """
    import torch
    from torch import nn
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    """,
    """
    def perturb(image, model, steps=20, targeted=False):
        x = image.detach().clone()
        delta = torch.zeros_like(x, requires_grad=True)
        opt = torch.optim.Adam([delta], lr=0.05)
        best, best_x = 1e9, x
        for i in range(steps):
            opt.zero_grad()
            adv = torch.tanh(x + delta)
            dist = (adv - x).pow(2).sum()
            score = model(adv).max()
            loss = dist + (score if targeted else -score)
            loss.backward(retain_graph=True)
            opt.step()
            if dist < best:
                best, best_x = dist, adv
        return best_x
    """,
    """
    adv = perturb(torch.randn(1, 4), net, targeted=True)
    print(net(adv).argmax(1).item())
    """,
]


def test_notebook_attack_returning_its_image_retains_for_nothing(tmp_path):
    found = _cli(_notebook(tmp_path, ATTACK))
    assert len(found) == 1 and "notebook runs no other backward" in found[0]["message"]
    assert "inferred" in found[0]["message"] and found[0]["fix"] == "unsafe"


def test_notebook_cell_backwarding_the_returned_image_keeps_the_retain(tmp_path):
    cells = ATTACK + ["""
    adv.pow(2).sum().backward()
    """]
    assert _cli(_notebook(tmp_path, cells)) == []


GAN = """
import torch
from torch import nn


class GanTrainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = nn.Linear(2, 4)
        self.disc = nn.Linear(4, 1)
        self.opt_g = torch.optim.Adam(self.gen.parameters())
        self.opt_d = torch.optim.Adam(self.disc.parameters())

    def _disc_step(self, z, real):
        self.opt_d.zero_grad()
        fake = self.gen(z)
        d_real = self.disc(real).mean()
        d_fake = self.disc(fake.detach()).mean()
        d_loss = d_fake - d_real
        d_loss.backward(retain_graph=True)
        self.opt_d.step()
        return d_real, d_fake, {returned}

    def _gen_step(self, z, {g_arg}):
        self.opt_g.zero_grad()
        {g_fake}
        g_loss = -self.disc(fake).mean()
        g_loss.backward()
        self.opt_g.step()
        return g_loss

    def training_step(self, z, real):
        d_real, d_fake, out = self._disc_step(z, real)
        g_loss = self._gen_step(z, {g_pass})
        return float(d_real - d_fake), float(g_loss)
"""


def test_private_step_methods_returning_losses_judged_by_the_caller(tmp_path):
    src = GAN.format(returned="d_loss", g_arg="unused", g_fake="fake = self.gen(z)", g_pass="None")
    _write(tmp_path, {"gan/trainer.py": src})
    found = _found(src, str(tmp_path / "gan/trainer.py"))
    assert [f[0] for f in found] == [20]


def test_step_returning_the_fake_the_generator_step_reuses_keeps_the_retain(tmp_path):
    src = GAN.format(returned="fake", g_arg="fake", g_fake="fake = fake * 1.0", g_pass="out")
    src = src.replace("d_fake = self.disc(fake.detach()).mean()", "d_fake = self.disc(fake).mean()")
    _write(tmp_path, {"gan/trainer.py": src})
    assert _found(src, str(tmp_path / "gan/trainer.py")) == []


def test_step_called_from_another_file_is_not_judged_here(tmp_path):
    src = GAN.format(returned="d_loss", g_arg="unused", g_fake="fake = self.gen(z)", g_pass="None")
    _write(tmp_path, {"gan/trainer.py": src, "gan/loop.py": """
        def run(t, z, real):
            d_real, d_fake, d_loss = t._disc_step(z, real)
            (d_loss * 2).backward()
        """})
    assert _found(src, str(tmp_path / "gan/trainer.py")) == []
