"""Findings on correct programs (issue 8, precision), session 37's prec70.

1. Recurrent state a module's own methods cut (analysis/cut_returns.py): a loop that feeds back
   what `model(x, mems)` returns chains no graph when the class builds that state under
   `torch.no_grad()` or detaches it (Transformer-XL's `_update_mems`)."""
import os
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    os.utime(path, ns=(1, 1))


def _codes(path, code):
    with open(path) as fh:
        text = fh.read()
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return [f for f in findings if f.code == code]


MEMNET = """
import torch
import torch.nn as nn


class MemNet(nn.Module):
    def __init__(self, n_mem=6):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.mix = nn.Linear(8, 8)
        self.n_mem = n_mem

    def _update(self, hids, mems):
        if mems is None:
            return None
{update}
        return new_mems

    def _core(self, tokens, mems):
        h = self.emb(tokens)
        if mems is not None:
            h = h + mems.mean(0, keepdim=True)
        h = torch.tanh(self.mix(h))
        return h, self._update(h, mems)

    def forward(self, tokens, target, mems):
        if mems is None:
            mems = torch.zeros(1, 8)
        hidden, new_mems = self._core(tokens, mems)
        loss = (hidden.sum(-1) - target).pow(2).mean()
        return loss, new_mems
"""
QUIET = """\
        with torch.no_grad():
            joined = torch.cat([mems, hids], 0)
            new_mems = joined[-self.n_mem:]"""
DETACHED = """\
        joined = torch.cat([mems, hids], 0)
        new_mems = joined[-self.n_mem:].detach()"""
KEPT = """\
        joined = torch.cat([mems, hids], 0)
        new_mems = joined[-self.n_mem:]"""

SCRIPT = """
import torch
{imp}

torch.manual_seed(0)
model = MemNet()
mems = None
for step in range(5):
    tokens = torch.randint(0, 20, (3,))
    target = torch.randn(3)
    loss, mems = model(tokens, target, mems)
    print(step, loss.item())
"""


def _memnet(tmp_path, update, sibling):
    if sibling:
        _write(tmp_path / "memnet.py", MEMNET.format(update=update))
        _write(tmp_path / "selftest.py", SCRIPT.format(imp="from memnet import MemNet"))
    else:
        _write(tmp_path / "selftest.py", MEMNET.format(update=update) + SCRIPT.format(imp=""))
    return _codes(tmp_path / "selftest.py", "AD101")


def test_state_built_under_no_grad_by_the_class_is_no_chain(tmp_path):
    assert _memnet(tmp_path, QUIET, sibling=False) == []


def test_state_detached_by_the_class_is_no_chain(tmp_path):
    assert _memnet(tmp_path, DETACHED, sibling=False) == []


def test_state_the_class_keeps_with_its_graph_is_still_reported(tmp_path):
    found = _memnet(tmp_path, KEPT, sibling=False)
    assert len(found) == 1 and "`mems`" in found[0].message, [f.message for f in found]


AGENT = """
import torch
import torch.nn as nn


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(4, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, obs, h):
        h = self.cell(obs, h)
        return self.head(h), {ret}

    def act(self, obs, h):
        q, h = self.forward(obs, h)
        return q.argmax().item(), h


torch.manual_seed(0)
agent = Agent()
h = torch.zeros(1, 8)
total = 0
for t in range(6):
    obs = torch.randn(1, 4)
    a, h = agent.act(obs, h)
    total += a
print(total)
"""


def test_method_of_an_agent_whose_forward_detaches_the_state_is_no_chain(tmp_path):
    _write(tmp_path / "play.py", AGENT.format(ret="h.detach()"))
    assert _codes(tmp_path / "play.py", "AD101") == []


def test_method_of_an_agent_whose_forward_keeps_the_state_is_still_reported(tmp_path):
    _write(tmp_path / "play.py", AGENT.format(ret="h"))
    assert len(_codes(tmp_path / "play.py", "AD101")) == 1


# 2. An attribute every store of which in the project is a number (analysis/number_attributes.py):
#    `out.loss_value` of an output object the model fills with `nll.item()` carries no graph.
OUTPUTS = """
import torch
import torch.nn as nn


class StepOutput(object):
    def __init__(self, hidden, loss=0, loss_value: float = 0):
        self.hidden = hidden
        self.loss = loss
        self.loss_value = loss_value


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRUCell(4, 8)
        self.out = nn.Linear(8, 3)

    def forward(self, xs, ys):
        h = torch.zeros(xs.size(1), 8)
        r = StepOutput(h)
        for x, y in zip(xs, ys):
            h = self.rnn(x, h)
            step = nn.functional.cross_entropy(self.out(h), y)
            r.loss += step
            r.loss_value += {value}
        r.hidden = h
        return r
"""

TRAIN = """
import torch
from outputs import Tagger


def train_batch(model, opt, xs, ys):
    opt.zero_grad()
    out = model(xs, ys)
    out.loss.backward()
    opt.step()
    steps = xs.size(0)
    return out.loss_value / steps


def train(model, batches):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    cached = []
    history = []
    for i, (xs, ys) in enumerate(batches):
        loss = train_batch(model, opt, xs, ys)
        cached.append(loss)
        if i % 2 == 1:
            history.append(sum(cached) / len(cached))
            cached = []
    return history


torch.manual_seed(0)
data = [(torch.randn(5, 2, 4), torch.randint(0, 3, (5, 2))) for _ in range(4)]
print(train(Tagger(), data))
"""


def _outputs(tmp_path, value):
    _write(tmp_path / "outputs.py", OUTPUTS.format(value=value))
    _write(tmp_path / "train.py", TRAIN)
    return _codes(tmp_path / "train.py", "AD102")


def test_output_attribute_filled_with_item_is_a_number(tmp_path):
    assert _outputs(tmp_path, "step.item()") == []


def test_output_attribute_filled_with_the_tensor_is_still_reported(tmp_path):
    assert len(_outputs(tmp_path, "step")) >= 1


TRAINER = """
import torch
import torch.nn as nn


class Result:
    def __init__(self, logits):
        self.logits = logits
        self.score = 0.0


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x, y):
        r = Result(self.fc(x))
        r.loss = nn.functional.cross_entropy(r.logits, y)
        r.score = {value}
        return r


class Trainer:
    def __init__(self):
        self.net = Net()
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def fit(self, n):
        scores = []
        for _ in range(n):
            x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
            out = self.net(x, y)
            self.opt.zero_grad()
            out.loss.backward()
            self.opt.step()
            scores.append(out.score)
        return scores


torch.manual_seed(0)
print(Trainer().fit(3))
"""


def test_trainer_method_reads_a_number_attribute_of_the_output(tmp_path):
    _write(tmp_path / "fit.py", TRAINER.format(value="float(r.loss.item()) * 2"))
    assert _codes(tmp_path / "fit.py", "AD101") == []


def test_trainer_method_reads_a_tensor_attribute_of_the_output(tmp_path):
    _write(tmp_path / "fit.py", TRAINER.format(value="r.loss * 2"))
    assert len(_codes(tmp_path / "fit.py", "AD101")) == 1


# 4. A helper of another file that hands the prediction lists back with only numbers added, through
#    helpers of its own file (and `**kwargs`): its flow per argument is read (summaries._file_delegate).
HELPERS = """
import torch


def collect(outputs, labels, all_preds, all_labels, kind, **kwargs):
    if kind == "binary":
        all_preds, all_labels = _binary(outputs, labels, all_preds, all_labels, **kwargs)
    else:
        all_preds, all_labels = _classes(outputs, labels, all_preds, all_labels)
    return all_preds, all_labels


def _binary(outputs, labels, all_preds, all_labels, **kwargs):
    threshold = kwargs["threshold"] if kwargs.get("threshold") else 0.5
    predicted = torch.sigmoid(outputs){cut} >= threshold
    for pred, label in zip(predicted, labels):
        all_preds.append({keep})
        all_labels.append(label.item())
    return all_preds, all_labels


def _classes(outputs, labels, all_preds, all_labels):
    _, predicted = torch.max(outputs.data, 1)
    for pred, label in zip(predicted, labels):
        all_preds.append(pred.item())
        all_labels.append(label.item())
    return all_preds, all_labels
"""

TRAINER4 = """
import torch
import torch.nn as nn
from helpers import collect


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.criterion = nn.BCEWithLogitsLoss()

    def train_model(self, batches):
        all_preds, all_labels = [], []
        for x, y in batches:
            self.optimizer.zero_grad()
            outputs = self.model(x).squeeze(1)
            loss = self.criterion(outputs, y)
            loss.backward()
            self.optimizer.step()
            all_preds, all_labels = collect(outputs, y, all_preds, all_labels, "binary", threshold=0.4)
        return sum(p == t for p, t in zip(all_preds, all_labels))


torch.manual_seed(0)
data = [(torch.randn(6, 3), torch.randint(0, 2, (6,)).float()) for _ in range(3)]
print(Trainer(nn.Linear(3, 1)).train_model(data))
"""


def _predict(tmp_path, cut=".data", keep="pred.item()"):
    _write(tmp_path / "helpers.py", HELPERS.format(cut=cut, keep=keep))
    _write(tmp_path / "trainer.py", TRAINER4)
    return _codes(tmp_path / "trainer.py", "AD101")


def test_predictions_kept_as_numbers_by_a_dispatching_helper(tmp_path):
    assert _predict(tmp_path) == []


def test_predictions_kept_as_tensors_by_the_helper_are_still_reported(tmp_path):
    assert len(_predict(tmp_path, cut="", keep="outputs")) == 1


SCRIPT4 = """
import torch
import torch.nn as nn


def _top(scores, kept):
    for row in scores.detach():
        kept.append(int(row.argmax()))
    return kept


def record(scores, kept):
    kept = _top(scores, kept)
    return kept


torch.manual_seed(0)
net = nn.Linear(4, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
history = []
for step in range(3):
    scores = net(torch.randn(5, 4))
    loss = scores.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    history = record(scores, history)
print(len(history))
"""


def test_notebook_style_script_hands_its_list_to_a_cutting_helper(tmp_path):
    _write(tmp_path / "helpers.py", SCRIPT4.split("torch.manual_seed(0)")[0])
    _write(tmp_path / "nb.py", "import torch\nimport torch.nn as nn\nfrom helpers import record\n\n" +
           "torch.manual_seed(0)" + SCRIPT4.split("torch.manual_seed(0)")[1])
    assert _codes(tmp_path / "nb.py", "AD101") == []


# 5. Helpers of a sibling module that each sample their own buffer into new tensors, run their own
#    forward, backward and step: neither backwards a graph the loop built (summaries._reaches), and
#    an agent built by a factory function acts through classes whose `act` returns numbers
#    (quiet_methods._factory_methods; `random.randrange` is a number).
LOSSES = """
import numpy as np
import torch


def rl_loss(model, buffer, optimizer, batch):
    state, action, reward = buffer.sample(batch)
    state = torch.tensor(np.float32(state))
    action = torch.LongTensor(action)
    reward = torch.tensor(reward, dtype=torch.float32)
    q = model(state).gather(1, action.unsqueeze(1)).squeeze(1)
    loss = (q - reward).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def sl_loss(policy, buffer, optimizer, batch):
    state, action = buffer.sample(batch)
    state = torch.tensor(np.float32(state))
    action = torch.LongTensor(action)
    loss = -policy(state).gather(1, action.unsqueeze(1)).log().mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss
"""

MODELS = """
import random

import torch
import torch.nn as nn


def make_q(n_in, n_act, wide=False):
    if wide:
        net = WideQ(n_in, n_act)
    else:
        net = SmallQ(n_in, n_act)
    return net


class SmallQ(nn.Module):
    def __init__(self, n_in, n_act):
        super().__init__()
        self.fc = nn.Linear(n_in, n_act)
        self.n_act = n_act

    def forward(self, x):
        return self.fc(x)

    def act(self, state, eps):
        if random.random() > eps:
            with torch.no_grad():
                return self.forward(state.unsqueeze(0)).max(1)[1].item()
        return random.randrange(self.n_act)


class WideQ(SmallQ):
    def __init__(self, n_in, n_act):
        super().__init__(n_in, n_act)
        self.fc = nn.Sequential(nn.Linear(n_in, 16), nn.ReLU(), nn.Linear(16, n_act))

    def act(self, state, eps):
        if random.random() > eps:
            {act}
        return random.randrange(self.n_act)


class Policy(nn.Module):
    def __init__(self, n_in, n_act):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(n_in, n_act), nn.Softmax(dim=1))

    def forward(self, x):
        return self.fc(x)
"""
QUIET_ACT = """with torch.no_grad():
                return self.forward(state.unsqueeze(0)).argmax().item()"""

LOOP = """
import random

import torch
from models import make_q, Policy
from losses import rl_loss, sl_loss


class Buffer:
    def __init__(self):
        self.items = []

    def push(self, *item):
        self.items.append(item)

    def sample(self, n):
        return [list(x) for x in zip(*random.sample(self.items, n))]


torch.manual_seed(0)
random.seed(0)
current = make_q(4, 2, wide=True)
policy = Policy(4, 2)
rl_opt = torch.optim.SGD(current.parameters(), lr=0.01)
sl_opt = torch.optim.SGD(policy.parameters(), lr=0.01)
replay, reservoir = Buffer(), Buffer()
rl_losses, sl_losses = [], []
for frame in range(12):
    state = torch.randn(4)
    action = current.act(state, 0.1)
    replay.push(state.tolist(), action, 1.0)
    reservoir.push(state.tolist(), action)
    if frame >= 4:
        loss = rl_loss(current, replay, rl_opt, 4)
        rl_losses.append(loss.item())
        loss = sl_loss(policy, reservoir, sl_opt, 4)
        sl_losses.append(loss.item())
print(sum(rl_losses), sum(sl_losses))
"""


def _nfsp(tmp_path, act=QUIET_ACT):
    _write(tmp_path / "losses.py", LOSSES)
    _write(tmp_path / "models.py", MODELS.format(act=act))
    _write(tmp_path / "selfplay.py", LOOP)
    with open(tmp_path / "selfplay.py") as fh:
        findings, _, _ = check_source(fh.read(), str(tmp_path / "selfplay.py"), all_rules(), Options())
    return [f for f in findings if f.code.startswith("AD1")]


def test_helpers_that_copy_their_samples_backward_no_graph_of_the_loop(tmp_path):
    assert _nfsp(tmp_path) == []


def test_a_helper_that_backwards_its_samples_as_they_are_still_backwards_the_buffer(tmp_path):
    from autodetach.analysis.project import find

    _write(tmp_path / "losses.py", LOSSES.replace("state = torch.tensor(np.float32(state))",
                                                  "state = torch.stack(state)"))
    assert "buffer" in find(str(tmp_path / "losses.py"), "sl_loss")[0].backward_params
    (tmp_path / "copied").mkdir()
    _write(tmp_path / "copied" / "losses.py", LOSSES)
    assert "buffer" not in find(str(tmp_path / "copied" / "losses.py"), "rl_loss")[0].backward_params
