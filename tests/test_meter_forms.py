"""Meters in a sibling module that fold their argument into `self` state in any
arithmetic form (FEAT's `Averager.add`: `self.v = (self.v * self.n + x) / (self.n + 1)`;
online-continual-learning's `AverageMeter.update(val, n)`: `self.sum += val * n`),
fed a loss tensor at the call: where the meter lives (a local, a dict of meters,
`self` of a trainer), how it is fed (`update(loss, n)`), and
a network run as `model.forward(x)`. The negatives beside them: numbers fed, state
rebound without reading itself."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

AVERAGER = """
class Averager:
    def __init__(self):
        self.n = 0
        self.v = 0

    def add(self, x):
        self.v = (self.v * self.n + x) / (self.n + 1)
        self.n += 1

    def item(self):
        return self.v
"""

METER = """
class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.sum = 0
        self.count = 0

    def update(self, val, n):
        self.sum += val * n
        self.count += n

    def avg(self):
        return float(self.sum) / max(self.count, 1)
"""


def _found(tmp_path, train, meters=AVERAGER, name="utils.py"):
    (tmp_path / name).write_text(textwrap.dedent(meters))
    src = textwrap.dedent(train)
    (tmp_path / "train.py").write_text(src)
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    found, _, _ = check_source(src, str(tmp_path / "train.py"), rules, Options())
    return [(f.code, f.line, f.fix) for f in found]


LOCAL = """
import torch.nn.functional as F
from utils import Averager


def train(model, optimizer, loader):
    tl = Averager()
    for x, y in loader:
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        tl.add({value})
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return tl.item()
"""


def test_an_average_written_out_as_a_division_keeps_the_graph(tmp_path):
    assert _found(tmp_path, LOCAL.format(value="loss")) == [("AD102", 11, "unsafe")]
    for cut in ("loss.item()", "loss.detach()", "float(loss)"):
        assert _found(tmp_path, LOCAL.format(value=cut)) == [], cut


def test_other_arithmetic_forms_of_the_fold(tmp_path):
    for fold in ("self.v = self.v * self.n / (self.n + 1) + x / (self.n + 1)",
                 "self.v = (x + self.v * self.n) / (self.n + 1)",
                 "self.v = self.n / (self.n + 1) * self.v + x / (self.n + 1)",
                 "self.v = self.v + (x - self.v) / (self.n + 1)"):
        meters = AVERAGER.replace("self.v = (self.v * self.n + x) / (self.n + 1)", fold)
        assert _found(tmp_path, LOCAL.format(value="loss"), meters) == [("AD102", 11, "unsafe")], fold


def test_state_rebound_without_reading_itself_is_no_fold(tmp_path):
    # `self.v = x / 2`: the last value only, dropped at the next call
    meters = AVERAGER.replace("self.v = (self.v * self.n + x) / (self.n + 1)", "self.v = x / (self.n + 1)")
    assert _found(tmp_path, LOCAL.format(value="loss"), meters) == []


TRAINER = """
import torch.nn.functional as F
from utils import Averager


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def train(self, loader):
        self.meter = Averager()
        for x, y in loader:
            logits, aux = self.model{forward}(x)
            loss = F.cross_entropy(logits, y)
            total = loss + 0.1 * aux.pow(2).mean()
            self.meter.add({value})
            self.optimizer.zero_grad()
            total.backward()
            self.optimizer.step()
        print(self.meter.item())
"""


def test_a_meter_on_self_of_a_trainer_fed_a_part_of_the_loss(tmp_path):
    # the loss fed is summed into the backwarded total (FEAT's tl2.add(loss) beside total_loss)
    assert _found(tmp_path, TRAINER.format(forward="", value="loss")) == [("AD102", 17, "unsafe")]
    assert _found(tmp_path, TRAINER.format(forward="", value="loss.item()")) == []


def test_a_network_run_through_its_forward_method(tmp_path):
    assert _found(tmp_path, TRAINER.format(forward=".forward", value="loss")) == [("AD102", 17, "unsafe")]
    assert _found(tmp_path, TRAINER.format(forward=".forward", value="loss.item()")) == []


N_BATCH = """
import torch.nn.functional as F
from utils import AverageMeter


def train_learner(model, opt, loader, epochs):
    losses = AverageMeter()
    for ep in range(epochs):
        for x, y in loader:
            logits = model.forward(x)
            loss = F.cross_entropy(logits, y)
            losses.update({value}, y.size(0))
            opt.zero_grad()
            loss.backward()
            opt.step()
    print(losses.avg())
"""


def test_update_with_a_batch_size_and_a_forward_call(tmp_path):
    assert _found(tmp_path, N_BATCH.format(value="loss"), METER) == [("AD102", 12, "unsafe")]
    assert _found(tmp_path, N_BATCH.format(value="loss.item()"), METER) == []


DICT = """
import torch.nn.functional as F
from utils import Averager


def train(model, optimizer, loader):
    meters = {{"loss": Averager(), "acc": Averager()}}
    for x, y in loader:
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        meters["loss"].add({value})
        meters["acc"].add((logits.argmax(1) == y).float().mean().item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return {{k: m.item() for k, m in meters.items()}}
"""


def test_a_meter_in_a_dict_of_meters(tmp_path):
    assert _found(tmp_path, DICT.format(value="loss")) == [("AD102", 11, "unsafe")]
    assert _found(tmp_path, DICT.format(value="loss.item()")) == []


LIBRARY = """
import torch.nn.functional as F
from meterlib import Averager


def train(model, optimizer, loader):
    tl = Averager()
    for x, y in loader:
        loss = F.cross_entropy(model.forward(x), y)
        tl.add({value})
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(tl.item())
"""


def test_a_meter_class_out_of_sight_is_inferred_from_the_backward(tmp_path):
    # meterlib is not readable: that `add` keeps its argument is a guess, so no safe fix
    found = _found(tmp_path, LIBRARY.format(value="loss"), meters="", name="other.py")
    assert [(code, line) for code, line, _ in found] == [("AD102", 10)], found
    assert found[0][2] != "safe"
    assert _found(tmp_path, LIBRARY.format(value="loss.item()"), meters="", name="other.py") == []
