"""Facts from other files of the project (issue 8): a meter whose callers are
elsewhere, a class chosen at run time, a loss object from a factory. Each
finding that rests on them names the inference and offers an unsafe fix."""
import os
import textwrap

from autodetach.analysis.summaries import CALLS, summarize
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

METER = """
class Tracker:
    def __init__(self, keys):
        self.sums = {{k: 0.0 for k in keys}}

    def update_losses(self, losses):
        for key in losses:
            self.sums[key] += losses[key]{cut}
"""

LOOP = """
import torch
from torch import nn
from meter import Tracker

net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
tracker = Tracker(["total"])
for x in [torch.randn(2, 4)] * 3:
    losses = {{"total": net(x).pow(2).mean()}}
    opt.zero_grad()
    losses["total"].backward(){guard}
    tracker.update_losses({arg})
"""

ALGOS = """
import torch

class Plain:
    def __init__(self, net):
        self.net = net
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

    def train_step(self, x):
        loss = self.net(x).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return {ret}, x.size(0)
"""

RUN = """
import torch
from torch import nn
import algos

def run(name, batches):
    algo = getattr(algos, name)(nn.Linear(4, 1))
    running_loss = 0.0
    for x in batches:
        step_loss, n = algo.train_step(x)
        running_loss += step_loss * n
    return float(running_loss)
"""


def _findings(path, code):
    with open(path) as fh:
        text = fh.read()
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return [f for f in findings if f.code == code]


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    os.utime(path, ns=(1, 1))


def test_caller_summary_records_backwarded_arguments_in_loops():
    table = summarize(textwrap.dedent(LOOP.format(guard="", arg="losses")))
    assert table[CALLS] == {"update_losses": ((13, 0, "losses"),)}
    # a value the backward does not prove, or a call outside any loop, is not recorded
    assert summarize("m.update(x)\nfor i in r:\n    m.update(y)\n")[CALLS] == {}


def test_meter_reported_at_its_store_when_a_caller_elsewhere_feeds_it_a_graph(tmp_path):
    _write(tmp_path / "meter.py", METER.format(cut=""))
    _write(tmp_path / "train.py", LOOP.format(guard="", arg="losses"))
    found = _findings(tmp_path / "meter.py", "AD102")
    assert len(found) == 1 and found[0].line == 8 and found[0].fix == "unsafe"
    assert "train.py (line 13)" in found[0].message and "inferred" in found[0].message


def test_meter_not_reported_when_it_keeps_numbers_or_callers_pass_none(tmp_path):
    _write(tmp_path / "meter.py", METER.format(cut=".item()"))
    _write(tmp_path / "train.py", LOOP.format(guard="", arg="losses"))
    assert _findings(tmp_path / "meter.py", "AD102") == []
    _write(tmp_path / "meter.py", METER.format(cut=""))
    _write(tmp_path / "train.py", LOOP.format(guard="", arg="{k: v.item() for k, v in losses.items()}"))
    assert _findings(tmp_path / "meter.py", "AD102") == []


def test_class_chosen_at_run_time(tmp_path):
    _write(tmp_path / "algos.py", ALGOS.format(ret="loss"))
    _write(tmp_path / "run.py", RUN)
    found = _findings(tmp_path / "run.py", "AD102")
    assert len(found) == 1 and found[0].fix == "unsafe"
    assert "chosen at run time" in found[0].message and "Plain (algos.py)" in found[0].message
    _write(tmp_path / "algos.py", ALGOS.format(ret="loss.item()"))
    assert _findings(tmp_path / "run.py", "AD102") == []


GAN_LOSS = """
import torch
from torch import nn


class GANLoss(nn.Module):
    def __init__(self, disc):
        super().__init__()
        self.disc = disc

    def forward(self, fake, real):
        return self.disc(fake), self.disc(real)

    def discriminator_loss(self, fake, real):
        d_fake, d_real = self.forward({fake}, real)
        return torch.mean(d_fake ** 2) + torch.mean((1 - d_real) ** 2)

    def generator_loss(self, fake, real):
        d_fake, _ = self.forward(fake, real)
        return torch.mean((1 - d_fake) ** 2)
"""

CODEC_TRAINER = """
import torch


class Trainer:
    def __init__(self, model, disc):
        from {dots}loss import GANLoss
        self.model = model
        self.gan_loss = GANLoss(disc)
        self.optimizer = torch.optim.Adam(model.parameters())
        self.optimizer_d = torch.optim.Adam(disc.parameters())

    def train_step(self, x):
        out = self.model(x)
        disc_loss = self.gan_loss.discriminator_loss(out, x)
        self.optimizer_d.zero_grad()
        disc_loss.backward()
        self.optimizer_d.step()
        gen_loss = self.gan_loss.generator_loss(out, x) + (out - x).abs().mean()
        self.optimizer.zero_grad()
        gen_loss.backward()
        self.optimizer.step()
"""


def test_loss_object_imported_inside_init(tmp_path):
    # DAC/Amphion codec trainers: `from .loss import GANLoss` inside __init__, and
    # GANLoss.discriminator_loss runs the discriminator on `fake.clone().detach()`
    package = tmp_path / "codec"
    package.mkdir()
    _write(package / "__init__.py", "")
    for dots in (".", ""):
        _write(package / "trainer.py", CODEC_TRAINER.format(dots=dots))
        _write(package / "loss.py", GAN_LOSS.format(fake="fake.clone().detach()"))
        assert _findings(package / "trainer.py", "AD103") == [], dots
        _write(package / "loss.py", GAN_LOSS.format(fake="fake"))
        found = _findings(package / "trainer.py", "AD103")
        assert [f.line for f in found] == [15], dots


SIBLING_LOSSES = """
import torch.nn.functional as F


def loss_fn(out, y):
    return F.mse_loss(out, y){cut}
"""

SIBLING_TRAIN = """
import torch
from torch import nn
from losses import loss_fn

net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
running = 0.0
for x, y in [(torch.randn(2, 4), torch.randn(2, 1))] * 3:
    loss = loss_fn(net(x), y)
    running += loss
    opt.zero_grad()
    net(x).pow(2).mean().backward()
    opt.step()
"""


def test_projects_with_the_same_sibling_module_names_do_not_mix(tmp_path):
    # Two projects in one run, each with its own `losses.py`: a lookup must
    # resolve against the importing file's project, whatever ran before.
    from autodetach.runner import Settings, run

    for name, cut in (("graph", ""), ("numbers", ".item()")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "losses.py").write_text(SIBLING_LOSSES.format(cut=cut))
        (tmp_path / name / "train.py").write_text(SIBLING_TRAIN)
    settings = Settings(codes=tuple(r.code for r in all_rules()))
    for order in (("graph", "numbers"), ("numbers", "graph")):
        files = [str(tmp_path / name / f) for name in order for f in ("losses.py", "train.py")]
        results = list(run(files, settings))  # one process: the project caches outlive each file
        found = {os.path.basename(os.path.dirname(f.path)) for r in results for f in r.findings if f.code == "AD102"}
        assert found == {"graph"}
