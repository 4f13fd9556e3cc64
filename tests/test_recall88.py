"""Session 38, recall88: an evaluation function whose callers hand it a network
(analysis.caller_networks), found in its own file and in a file of another
folder of the package that never names torch (neural_sp's evaluators/loss.py,
called from bin/asr/train.py)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

EVAL_LOSS = """
def eval_loss(models, dataset, params):
    model = models[0]
    total_loss = 0
    while True:
        batch, last = dataset.next(params["batch_size"])
        loss, acc = model(batch["xs"], batch["ys"], is_eval=True)
        total_loss += loss * len(batch["ids"])
        if last:
            break
    return total_loss / len(dataset)
"""

MODELS = """
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, xs, ys, is_eval=False):
        loss = (self.proj(xs) - ys).pow(2).mean()
        return loss, 0.0
"""

TRAIN = """
import torch
from pkg.evaluators.loss import eval_loss
from pkg.models.encoder import Encoder
from pkg.bin.utils import Updater


def main(args, train_set, dev_set):
    model = Encoder()
    updater = Updater(model)
    for epoch in range(args.epochs):
        for batch in train_set:
            updater(batch)
        metric = eval_loss([model], dev_set, {"batch_size": 8})
        print(metric)
"""


def _project(tmp_path, train=TRAIN, helper=EVAL_LOSS):
    """pkg/evaluators/loss.py (the helper), pkg/models/encoder.py, pkg/bin/train.py."""
    for folder in ("pkg", "pkg/evaluators", "pkg/models", "pkg/bin"):
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "pkg/models/encoder.py").write_text(textwrap.dedent(MODELS))
    (tmp_path / "pkg/bin/train.py").write_text(textwrap.dedent(train))
    path = tmp_path / "pkg/evaluators/loss.py"
    path.write_text(textwrap.dedent(helper))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code in ("AD101", "AD102")]


def test_torch_free_helper_called_from_another_folder_with_a_network(tmp_path):
    found = _project(tmp_path)
    assert [(f.code, f.line) for f in found] == [("AD102", 8)]
    f = found[0]
    assert f.fix == "unsafe"
    assert "is (or holds) a network: every call found hands it one, `[model]` (train.py line 14)" in f.message
    assert "built by `Encoder(...)`, an nn.Module class of the project" in f.message
    assert "`model` is unpacked from `models`" in f.message


def test_a_wrapped_network_counts(tmp_path):
    train = TRAIN.replace("    model = Encoder()\n", "    model = Encoder()\n    model = Wrap(model)\n") \
        .replace("eval_loss([model]", "eval_loss([model.module]") \
        .replace("import torch\n", "import torch\nfrom w import Wrap\n")
    assert [f.line for f in _project(tmp_path, train)] == [8]


def test_no_network_handed_is_no_finding(tmp_path):
    # a plain object (not a network) in that position: the file never names torch, nothing else says so
    plain = TRAIN.replace("from pkg.models.encoder import Encoder\n", "") \
        .replace("    model = Encoder()\n", "    model = lambda xs, ys, is_eval: (0.0, 0.0)\n")
    assert _project(tmp_path, plain) == []


def test_every_call_must_hand_a_network(tmp_path):
    two = TRAIN.replace("        print(metric)\n",
                        "        print(metric)\n        print(eval_loss([scorer], dev_set, {}))\n")
    assert _project(tmp_path, two) == []


def test_a_caller_under_no_grad_or_none_is_no_finding(tmp_path):
    guarded = TRAIN.replace("        metric = eval_loss(",
                            "        with torch.no_grad():\n            metric = eval_loss(")
    assert _project(tmp_path, guarded) == []
    assert _project(tmp_path, "import torch\n") == []


def _here(src):
    findings, _, _ = check_source(textwrap.dedent(src), "<string>", all_rules(), Options())
    return [(f.code, f.line, f.fix) for f in findings if f.code in ("AD101", "AD102")]


TRAINER = """
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.crit = nn.MSELoss()

    def score(self, network, batches):
        running = 0.0
        for x, y in batches:
            running += self.crit(network(x), y)
        return running / len(batches)

    def fit(self, data, val):
        for x, y in data:
            self.opt.zero_grad()
            self.crit(self.model(x), y).backward()
            self.opt.step()
        print(float(self.score(self.model, val)))
"""


def test_a_method_handed_the_trained_network_in_its_own_file():
    assert _here(TRAINER) == [("AD102", 15, "unsafe")]


def test_in_its_own_file_under_no_grad_or_handed_a_function_is_no_finding():
    guarded = TRAINER.replace("        print(float(self.score(self.model, val)))",
                              "        with torch.no_grad():\n            print(float(self.score(self.model, val)))")
    assert _here(guarded) == []
    handed = TRAINER.replace("self.score(self.model, val)", "self.score(lambda x: x.mean(1, keepdim=True), val)")
    assert _here(handed) == []


GAN_STEPS = """
import torch


def select(y):
    return y[:, :2]


def update_d(model_d, opt_d, real, fake):
    fake_adv = select(fake)
    loss_d = -(torch.log(model_d(real)) + torch.log(1 - model_d(fake_adv))).mean()
    loss_d.backward(retain_graph=True)
    opt_d.step()
    return loss_d.item()


def update_g(model_d, opt_g, fake, target):
    loss_g = (fake - target).pow(2).mean() - torch.log(model_d(select(fake))).mean()
    loss_g.backward()
    opt_g.step()
    return loss_g.item()


def train_loop(model_g, model_d, opt_g, opt_d, loader):
    for x, y in loader:
        opt_g.zero_grad()
        opt_d.zero_grad()
        fake = model_g(x)
        update_d(model_d, opt_d, y, fake)
        update_g(model_d, opt_g, fake, y)
"""


def _ad104(tmp_path, src):
    path = tmp_path / "gan.py"
    path.write_text(textwrap.dedent(src))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f.line for f in findings if f.code == "AD104"]


def test_a_retain_whose_graph_the_caller_hands_to_another_backward_is_needed(tmp_path):
    # gantts' train_loop: `update_g` backwards a loss built from the same `fake` (through `select`), so
    # dropping update_d's retain would raise; main offered to drop it (unsafe)
    assert _ad104(tmp_path, GAN_STEPS) == []


def test_a_sibling_handed_the_detached_value_leaves_the_retain_unneeded(tmp_path):
    detached = GAN_STEPS.replace("update_g(model_d, opt_g, fake, y)", "update_g(model_d, opt_g, fake.detach(), y)")
    assert _ad104(tmp_path, detached) == [12]


def test_calls_in_other_arms_of_an_if_or_with_starred_arguments_do_not_count(tmp_path):
    # `if algo == "a": a_update(...) elif ...: b_update(...)`: never both in one run (DeepRL's GeoffPAC agent)
    arms = GAN_STEPS.replace("        update_d(model_d, opt_d, y, fake)\n        update_g(model_d, opt_g, fake, y)\n",
                             "        if x.sum() > 0:\n            update_d(model_d, opt_d, y, fake)\n"
                             "        else:\n            update_g(model_d, opt_g, fake, y)\n")
    assert _ad104(tmp_path, arms) == [12]
    starred = GAN_STEPS.replace("        update_d(model_d, opt_d, y, fake)\n",
                                "        batch = [y, fake]\n        update_d(model_d, opt_d, *batch)\n")
    assert _ad104(tmp_path, starred) == [12]


def test_a_sibling_called_before_the_retaining_step_does_not_need_it(tmp_path):
    # Self-Supervised GANs' trainer: the critic step, whose backward reaches `fake`, runs before the
    # generator step that retains; the next iteration's critic gets a new `fake`. The G retain is unneeded.
    src = GAN_STEPS.replace("loss_d.backward(retain_graph=True)", "loss_d.backward()")
    src = src.replace("loss_g.backward()", "loss_g.backward(retain_graph=True)")
    assert _ad104(tmp_path, src) == [19]
