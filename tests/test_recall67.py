"""State kept on `self` by library classes (issue 8): a metric class whose
`__call__` folds the model's output into its counters, called by a trainer of
another file (AD101, analysis.metric_states), and a running total of what a
step function returns beside the loss it backwards (AD102, flow._beside_step)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.findings import UNSAFE
from autodetach.registry import all_rules

METRICS = """
import torch


class Metric:
    def reset(self):
        raise NotImplementedError

    def __call__(self, y_pred, y_true):
        raise NotImplementedError


class Precision(Metric):
    def __init__(self):
        self.true_positives = 0
        self.all_positives = 0

    def reset(self):
        self.true_positives = 0
        self.all_positives = 0

    def __call__(self, y_pred, y_true):
        if y_pred.size(1) == 1:
            y_pred = y_pred.round()
        else:
            y_pred = torch.eye(y_pred.size(1))[y_pred.argmax(1)]
        self.true_positives += (y_true * y_pred).sum(dim=0)
        self.all_positives += y_pred.sum(dim=0)
        return float((self.true_positives / (self.all_positives + 1e-20)).mean())


class Accuracy(Metric):
    def __init__(self):
        self.correct = 0

    def reset(self):
        self.correct = 0

    def __call__(self, y_pred, y_true):
        self.correct += y_pred.round().eq(y_true).sum().item()
        return self.correct
"""

TRAINER = """
from typing import Optional

import torch
import torch.nn.functional as F

from pkg.metrics import Metric


class Trainer:
    def __init__(self, model, metric: Optional[Metric] = None):
        self.model = model
        self.metric = metric
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    def fit(self, batches):
        score = 0.0
        for x, y in batches:
            self.optimizer.zero_grad()
            y_pred = self.model(x)
            loss = F.binary_cross_entropy_with_logits(y_pred, y)
            loss.backward()
            self.optimizer.step()
            if self.metric is not None:
                score = self.metric(torch.sigmoid(y_pred), y)
        return score
"""

CALL = "                score = self.metric(torch.sigmoid(y_pred), y)\n"


def _project(tmp_path, trainer: str, metrics: str = METRICS) -> str:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "metrics.py").write_text(textwrap.dedent(metrics))
    (pkg / "trainer.py").write_text(textwrap.dedent(trainer))
    return str(pkg / "metrics.py")


def _check(path: str, codes=("AD101", "AD102")):
    rules = [r for r in all_rules() if r.code in codes]
    with open(path, encoding="utf-8") as fh:
        found, _, _ = check_source(fh.read(), path, rules, Options())
    return found


def test_a_metric_fed_the_model_output_by_another_files_trainer_is_reported_at_its_stores(tmp_path):
    found = _check(_project(tmp_path, TRAINER))
    assert [(f.code, f.line) for f in found] == [("AD101", 27), ("AD101", 28)]
    for f in found:
        assert f.fix == UNSAFE
        assert "inferred" in f.message and "trainer.py" in f.message and "`self.metric`" in f.message
        assert "a base class of `Precision`" in f.message


def test_the_metric_file_needs_no_backward_of_its_own(tmp_path):
    # the file has none of the graph tokens: only the metric states are looked for
    path = _project(tmp_path, TRAINER)
    with open(path, encoding="utf-8") as fh:
        assert "backward" not in fh.read()
    assert len(_check(path, codes=("AD101",))) == 2


def test_a_metric_called_under_no_grad_is_left_alone(tmp_path):
    trainer = TRAINER.replace(CALL, "                with torch.no_grad():\n    " + CALL)
    assert _check(_project(tmp_path, trainer)) == []


def test_a_metric_reset_in_the_same_step_is_left_alone(tmp_path):
    trainer = TRAINER.replace(CALL, CALL + "                self.metric.reset()\n")
    assert _check(_project(tmp_path, trainer)) == []


def test_a_metric_handed_a_detached_output_is_left_alone(tmp_path):
    trainer = TRAINER.replace("torch.sigmoid(y_pred), y)", "torch.sigmoid(y_pred).detach(), y)")
    assert _check(_project(tmp_path, trainer)) == []


def test_an_object_of_no_known_class_is_not_taken_for_the_metric(tmp_path):
    # no annotation nor construction ties `self.metric` to the metric's classes
    trainer = TRAINER.replace("metric: Optional[Metric] = None", "metric=None")
    assert _check(_project(tmp_path, trainer)) == []


def test_a_metric_that_keeps_numbers_is_left_alone(tmp_path):
    metrics = METRICS.replace("self.true_positives += (y_true * y_pred).sum(dim=0)",
                              "self.true_positives += (y_true * y_pred).sum(dim=0).item()")
    metrics = metrics.replace("self.all_positives += y_pred.sum(dim=0)",
                              "self.all_positives += y_pred.sum(dim=0).item()")
    assert _check(_project(tmp_path, TRAINER, metrics)) == []


def test_a_metric_whose_every_arm_cuts_is_left_alone(tmp_path):
    metrics = METRICS.replace("y_pred = y_pred.round()", "y_pred = y_pred.round().detach()")
    assert _check(_project(tmp_path, TRAINER, metrics)) == []


STEP = """
import torch
import torch.nn.functional as F


def loss_batch(model, x, y, opt=None):
    out = model(x)
    loss = F.mse_loss(out, y)
    metric = (torch.sigmoid(out) * y).sum()
    if opt is not None:
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item(), metric


def loss_epoch(model, batches, opt=None):
    running_loss = 0.0
    running_metric = 0.0
    for x, y in batches:
        loss_b, metric_b = loss_batch(model, x, y, opt)
        running_loss += loss_b
        running_metric += metric_b
    return running_loss, running_metric
"""


def test_a_total_of_what_a_step_returns_beside_its_loss_is_a_loss_total(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(STEP))
    found = _check(str(path))
    assert [(f.code, f.line) for f in found] == [("AD102", 23)]


def test_a_step_that_returns_the_metric_as_a_number_is_left_alone(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(STEP.replace("return loss.item(), metric", "return loss.item(), metric.item()")))
    assert _check(str(path)) == []


DETECTOR = """
import torch
from torch import nn


class Detector:
    def init_model(self):
        raise NotImplementedError

    def forward_model(self, batch):
        raise NotImplementedError

    def fit(self, batches):
        self.model = self.init_model()
        opt = torch.optim.Adam(self.model.parameters(), lr=0.01)
        for batch in batches:
            loss, score = self.forward_model(batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return self

    def decision_function(self, batches, n):
        scores = torch.zeros(n)
        self.emb = torch.zeros(n, 3)
        for i, batch in enumerate(batches):
            loss, score = self.forward_model(batch)
            idx = torch.arange(i * 4, i * 4 + 4)
            self.emb[idx] = self.model.emb.cpu()
            scores[idx] = score
        return scores
"""


def _detector(tmp_path, src: str):
    path = tmp_path / "detector.py"
    path.write_text(textwrap.dedent(src))
    return _check(str(path))


def test_a_network_attribute_copied_into_slots_in_a_loop_without_backward_is_reported(tmp_path):
    found = _detector(tmp_path, DETECTOR)
    assert [(f.code, f.line) for f in found] == [("AD101", 29)]
    assert found[0].fix == UNSAFE and "inferred" in found[0].message and "`fit` backwards" in found[0].message


def test_network_slots_filled_under_no_grad_are_left_alone(tmp_path):
    quiet = DETECTOR.replace("    def decision_function(", "    @torch.no_grad()\n    def decision_function(")
    assert _detector(tmp_path, quiet) == []
    loop = DETECTOR.replace("        for i, batch in enumerate(batches):\n",
                            "        with torch.no_grad():\n          for i, batch in enumerate(batches):\n")
    assert _detector(tmp_path, loop) == []


def test_network_slots_of_a_detached_value_or_a_weight_are_left_alone(tmp_path):
    assert _detector(tmp_path, DETECTOR.replace("self.model.emb.cpu()", "self.model.emb.detach().cpu()")) == []
    assert _detector(tmp_path, DETECTOR.replace("self.model.emb.cpu()", "self.model.weight[:4]")) == []


def test_network_slots_need_the_loop_to_run_the_network(tmp_path):
    # nothing backwards what `forward_model` returns: that it runs the network is not known
    assert _detector(tmp_path, DETECTOR.replace("loss.backward()", "pass")) == []
