"""Session 36, prec68: false findings on correct real code.

1. flow: `obj.meth(h)` of a known project class whose every `meth` returns only cut values
   (`h.detach()`, a number, None, or a tuple/list of its own recursive calls) cuts its result,
   as duck_cuts already read it for an object of unknown class (backdoor-fl: AD106 offered a
   SAFE second detach of a state `helper.repackage_hidden` already cut).
2. AD105: two losses that meet only in a module call's result, read through different constant
   indices with nothing shared upstream, rest on an inference (two heads on one input share no
   graph): the retain is unsafe and says so (dl-lectures detection: it was SAFE).
3. frozen.proven_frozen: a graph from a module the class keeps frozen whenever the walked
   private method runs is no conflict.
4. first_iteration: `t > 0 and cond` is false on a loop's first walk (DeepAR's missing inputs
   filled with the previous step's prediction: AD101 said it reached the previous batch).
"""
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _codes(path):
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code.startswith("AD1")]


# ---------------------------------------------------------------- 1. a known class's cutting method
HELPERS = '''
import torch


class Base:
    pass


class ImageTools(Base):
    def images(self):
        return []


class TextTools(Base):
    @staticmethod
    def METH(h):
        if isinstance(h, torch.Tensor):
            return BODY
        return tuple(TextTools.METH(v) for v in h)
'''

SCRIPT = '''
import torch
import torch.nn as nn
from tools import ImageTools, TextTools

KIND = "text"
if KIND == "image":
    tools = ImageTools()
else:
    tools = TextTools()
rnn = nn.GRU(4, 8)
opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
h = torch.zeros(1, 2, 8)
for step in range(3):
    opt.zero_grad()
    h = tools.METH(h)
    out, h = rnn(torch.randn(5, 2, 4), h)
    loss = out.pow(2).mean()
    loss.backward()
    opt.step()
'''

TRAINER = '''
import torch
import torch.nn as nn
from tools import TextTools


class Trainer:
    def __init__(self):
        self.net = nn.LSTM(4, 8)
        self.opt = torch.optim.Adam(self.net.parameters())

    def run(self, chunks, tools):
        state = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))
        for x in chunks:
            state = tools.METH(state)
            out, state = self.net(x, state)
            loss = out.mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()


Trainer().run([torch.randn(3, 2, 4) for _ in range(3)], TextTools())
'''


def _project(tmp_path, main, meth="repackage_hidden", body="h.detach()"):
    (tmp_path / "tools.py").write_text(HELPERS.replace("METH", meth).replace("BODY", body))
    (tmp_path / "train.py").write_text(main.replace("METH", meth))
    return tmp_path / "train.py"


def test_a_known_class_method_that_cuts_recursively_is_a_cut(tmp_path):
    assert _codes(_project(tmp_path, SCRIPT)) == []


def test_the_same_with_another_name_and_data(tmp_path):
    assert _codes(_project(tmp_path, SCRIPT, meth="cut_state", body="h.data")) == []


def test_a_method_that_does_not_cut_is_still_reported(tmp_path):
    found = _codes(_project(tmp_path, SCRIPT, body="h.contiguous()"))
    assert [f.code for f in found] == ["AD106"]


def test_a_trainer_method_handed_the_tools(tmp_path):
    assert _codes(_project(tmp_path, TRAINER, meth="detach_all")) == []


def test_a_trainer_method_handed_tools_that_do_not_cut(tmp_path):
    found = _codes(_project(tmp_path, TRAINER, meth="detach_all", body="h * 1.0"))
    assert [f.code for f in found] == ["AD106"]


# ---------------------------------------------------------------- 2. elements of one module call
HEADS = '''
import torch
import torch.nn.functional as F


def train_epoch(model, loader, optimizer):
    for inputs, boxes, labels in loader:
        outputs = model(inputs)
        FIRST
        SECOND
        optimizer.zero_grad()
        b_loss.backward()
        c_loss.backward()
        optimizer.step()
'''


def _heads(tmp_path, first, second):
    path = tmp_path / "utils.py"
    path.write_text(HEADS.replace("FIRST", first).replace("SECOND", second))
    return _codes(path)


def test_indexed_elements_of_an_unknown_module_make_the_retain_unsafe(tmp_path):
    found = _heads(tmp_path, "b_loss = (outputs[0] - boxes).abs().mean()",
                   "c_loss = F.cross_entropy(outputs[1], labels)")
    assert [f.code for f in found] == ["AD105"]
    assert found[0].fix == "unsafe"
    assert "inferred: `outputs[0]` and `outputs[1]`" in found[0].message


def test_the_same_element_read_by_both_losses_is_not_an_inference(tmp_path):
    found = _heads(tmp_path, "b_loss = (outputs[0] - boxes).abs().mean()",
                   "c_loss = F.cross_entropy(outputs[0], labels)")
    assert [f.code for f in found] == ["AD105"]
    assert "inferred: `outputs[0]` and" not in found[0].message


def test_a_trunk_both_elements_hang_from_is_not_an_inference(tmp_path):
    src = HEADS.replace("outputs = model(inputs)", "feats = torch.relu(model.trunk(inputs))\n"
                        "        outputs = model.heads(feats)")
    path = tmp_path / "utils.py"
    path.write_text(src.replace("FIRST", "b_loss = (outputs[0] - boxes).abs().mean()")
                    .replace("SECOND", "c_loss = F.cross_entropy(outputs[1], labels)"))
    found = _codes(path)
    assert all("inferred: `outputs[0]` and" not in f.message for f in found)


# ---------------------------------------------------------------- 3. a generator kept frozen
GAN = '''
import torch
import torch.nn as nn


class GanTrainer:
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 6))
        self.netD = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
        self.opt_gen = torch.optim.Adam(self.netG.parameters())
        self.opt_dis = torch.optim.Adam(self.netD.parameters())

    def fit(self, batches):
        OFF
        for real in batches:
            self._generator_step(real.shape[0])
            self._discriminator_step(real)

    def _generator_step(self, n):
        self.netG.requires_grad_(True)
        loss_gen = -self.netD(self.netG(torch.randn(n, 4))).mean()
        loss_gen.backward()
        BACK
        self.opt_gen.step()
        self.opt_gen.zero_grad()

    def _discriminator_step(self, real):
        fake = self.netG(torch.randn(real.shape[0], 4))
        loss_disc = self.netD(fake).mean() - self.netD(real).mean()
        loss_disc.backward()
        self.opt_dis.step()
        self.opt_dis.zero_grad()
        mixed = torch.lerp(real, fake, 0.5).requires_grad_(True)
        grad = torch.autograd.grad(self.netD(mixed).sum(), mixed, create_graph=True)[0]
        penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
        penalty.backward()
        self.opt_dis.step()
'''


def _gan(tmp_path, off="self.netG.requires_grad_(False)", back="self.netG.requires_grad_(False)"):
    path = tmp_path / "gan.py"
    path.write_text(GAN.replace("OFF", off).replace("BACK", back))
    return [f.code for f in _codes(path)]


def test_a_generator_frozen_around_every_call_gives_no_graph(tmp_path):
    assert _gan(tmp_path) == []


def test_a_generator_switched_on_for_good_is_reported(tmp_path):
    assert _gan(tmp_path, back="pass") == ["AD105"]


def test_a_generator_never_switched_off_before_the_loop_is_reported(tmp_path):
    assert _gan(tmp_path, off="pass") == ["AD105"]


# ---------------------------------------------------------------- 4. `t > 0 and cond`
FILL = '''
import torch
import torch.nn as nn

cell = nn.LSTMCell(2, 8)
out = nn.Linear(8, 1)
opt = torch.optim.SGD(list(cell.parameters()) + list(out.parameters()), lr=0.1)
for batch, target in [(torch.randn(5, 3, 2), torch.randn(5, 3)) for _ in range(3)]:
    batch = batch.clone()
    h = c = torch.zeros(3, 8)
    loss = torch.zeros(1)
    for t in range(5):
        missing = batch[t, :, 0] == 0
        if TEST:
            batch[t, missing, 0] = pred[missing]
        h, c = cell(batch[t].clone(), (h, c))
        pred = out(h).squeeze(1)
        loss += ((pred - target[t]) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
'''


def _fill(tmp_path, test):
    path = tmp_path / "fill.py"
    path.write_text(FILL.replace("TEST", test))
    return [f.code for f in _codes(path)]


def test_a_fill_skipped_on_the_first_step_reads_this_window(tmp_path):
    assert _fill(tmp_path, "t > 0 and missing.any()") == []
    assert _fill(tmp_path, "missing.any() and t != 0") == []
    assert _fill(tmp_path, "t >= 1 and bool(missing.any())") == []


def test_a_fill_on_every_step_reaches_the_previous_batch(tmp_path):
    assert _fill(tmp_path, "missing.any()") == ["AD101"]
    assert _fill(tmp_path, "t > 0 or missing.any()") == ["AD101"]
