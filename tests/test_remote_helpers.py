"""analysis.remote_helpers: a helper that stores the loss it returns into an object
its callers, in other files, hand it (mi-prometheus' `predict_evaluate_collect`
with `stat_col["loss"] = loss`, called by a trainer subclass in another file)."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

WORKER = """
import torch.nn.functional as F


class Worker:
    def collect(self, model, batch, stat_col, episode):
        x, y = batch
        logits = model(x)
        loss = F.mse_loss(logits, y)
        stat_col["episode"] = episode
        stat_col["loss"] = STORED
        return logits, loss
"""

COLLECTOR = """
class Collector:
    def __init__(self):
        self.statistics = {"episode": [], "loss": []}

    def __setitem__(self, key, value):
        self.statistics[key]KEEP
"""

TRAINER = """
import torch

from stats import Collector
from worker import Worker


class Trainer(Worker):
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.stat_col = Collector()

    def train(self, loader):
        for episode, batch in enumerate(loader):
            self.optimizer.zero_grad()
            CALL
            BACKWARD
            self.optimizer.step()
"""

CALL = "logits, loss = self.collect(self.model, batch, self.stat_col, episode)"
APPEND = ".append(value)"


def _trainer(call=CALL, backward="loss.backward()", text=TRAINER):
    return text.replace("CALL", call).replace("BACKWARD", backward)


def _project(tmp_path, stored="loss", keep=APPEND, call=CALL, backward="loss.backward()", trainer=None):
    (tmp_path / "stats.py").write_text(textwrap.dedent(COLLECTOR.replace("KEEP", keep)))
    text = trainer or _trainer(call, backward)
    (tmp_path / "trainer.py").write_text(textwrap.dedent(text))
    worker = textwrap.dedent(WORKER.replace("STORED", stored))
    (tmp_path / "worker.py").write_text(worker)
    return worker, str(tmp_path / "worker.py")


def _check(text, path, fix=False):
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    return check_source(text, path, rules, Options(fix=fix, unsafe=fix))


def test_the_store_in_the_helper_is_reported_with_an_unsafe_fix(tmp_path):
    text, path = _project(tmp_path)
    found, new, _ = _check(text, path)
    assert [(f.code, f.line) for f in found] == [("AD102", 11)]
    msg = found[0].message
    assert "trainer.py (line 17)" in msg and "`Collector`" in msg and "inferred" in msg
    assert found[0].fix == "unsafe"
    _, new, _ = _check(text, path, fix=True)
    assert 'stat_col["loss"] = loss.detach()' in new


def test_a_worker_object_made_from_the_helpers_class(tmp_path):
    trainer = TRAINER.replace("class Trainer(Worker):", "class Trainer:").replace(
        "self.stat_col = Collector()", "self.stat_col = Collector()\n        self.worker = Worker()")
    trainer = _trainer(CALL.replace("self.collect(", "self.worker.collect("), text=trainer)
    text, path = _project(tmp_path, trainer=trainer)
    assert [f.line for f in _check(text, path)[0]] == [11]


def test_the_returned_loss_backwarded_through_a_sum(tmp_path):
    text, path = _project(tmp_path, backward="total = loss + 0.1 * logits.abs().mean()\n            total.backward()")
    assert [f.line for f in _check(text, path)[0]] == [11]


@pytest.mark.parametrize("variant", [
    dict(stored="loss.item()"),  # a number is stored
    dict(keep="[-1:] = [value]"),  # the collector keeps only the latest value
    dict(backward="(logits.sum() * 0).backward()"),  # the returned loss is never backwarded
    dict(call="with torch.no_grad():\n                " + CALL),  # evaluation: no graph
    dict(call=CALL.replace("self.stat_col", "{}")),  # a dict made for the call
])
def test_nothing_when_a_link_is_missing(tmp_path, variant):
    text, path = _project(tmp_path, **variant)
    assert _check(text, path)[0] == []


def test_a_sibling_class_with_a_method_of_that_name_is_not_this_helper(tmp_path):
    """The trainer inherits `collect` from another module's class: what it backwards
    says nothing about this file's helper."""
    (tmp_path / "other.py").write_text(textwrap.dedent("""
        class OtherWorker:
            def collect(self, model, batch, stat_col, episode):
                loss = model(batch[0]).mean()
                stat_col["loss"] = loss.item()
                return None, loss
    """))
    trainer = TRAINER.replace("from worker import Worker", "from other import OtherWorker").replace(
        "class Trainer(Worker):", "class Trainer(OtherWorker):")
    text, path = _project(tmp_path, trainer=_trainer(text=trainer))
    assert _check(text, path)[0] == []


def _once(trainer: str) -> str:
    return trainer.replace(
        "        for episode, batch in enumerate(loader):\n", "        episode, batch = 0, loader\n        if True:\n")


def test_a_step_function_is_a_caller_run_once_per_batch(tmp_path):
    text, path = _project(tmp_path, trainer=_once(_trainer()))
    assert [f.line for f in _check(text, path)[0]] == [11]


def test_a_caller_outside_a_loop_and_without_a_step_is_not_taken(tmp_path):
    trainer = _once(_trainer()).replace("            self.optimizer.step()\n", "")
    text, path = _project(tmp_path, trainer=trainer)
    assert _check(text, path)[0] == []


def test_a_meter_method_a_function_imported_from_the_helpers_file_and_a_local_meter(tmp_path):
    """`meter.update(loss)` in a module-level helper that the loop imports, the meter
    made in the calling function before its loop."""
    (tmp_path / "meters.py").write_text(textwrap.dedent("""
        class Averager:
            def __init__(self):
                self.total, self.n = 0.0, 0

            def update(self, value):
                self.total += value
                self.n += 1
    """))
    helper = textwrap.dedent("""
        def forward_and_log(model, x, y, meter):
            loss = (model(x) - y).pow(2).mean()
            meter.update(loss)
            return loss
    """)
    (tmp_path / "helpers.py").write_text(helper)
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import torch

        from helpers import forward_and_log
        from meters import Averager


        def fit(model, loader):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            meter = Averager()
            for x, y in loader:
                opt.zero_grad()
                loss = forward_and_log(model, x, y, meter)
                loss.backward()
                opt.step()
            return meter.total / meter.n
    """))
    found = _check(helper, str(tmp_path / "helpers.py"))[0]
    assert [(f.code, f.line) for f in found] == [("AD102", 4)]
    assert "`Averager` whose `update`" in found[0].message


def test_a_helper_walked_at_a_call_in_its_own_file_is_reported_once(tmp_path):
    import os
    import shutil

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    shutil.copy(os.path.join(root, "corpus", "AD102", "collector_passed_to_helper.py"), tmp_path / "train.py")
    (tmp_path / "runner.py").write_text(textwrap.dedent("""
        from train import StatisticsCollector, Worker


        class Runner(Worker):
            def run(self, loader):
                col = StatisticsCollector()
                for episode, batch in enumerate(loader):
                    logits, loss = self.predict_evaluate_collect(self.model, batch, col, episode)
                    loss.backward()
    """))
    text = (tmp_path / "train.py").read_text()
    assert [f.line for f in _check(text, str(tmp_path / "train.py"))[0]] == [47]


def test_an_attribute_the_callers_class_binds_to_a_plain_dict_is_not_a_meter(tmp_path):
    """Another class of the project binds `self.stat_col = Collector()`; the caller's own
    class binds a dict: its stores replace the entry."""
    (tmp_path / "other.py").write_text(textwrap.dedent("""
        from stats import Collector


        class Evaluator:
            def __init__(self):
                self.stat_col = Collector()
    """))
    trainer = _trainer().replace("self.stat_col = Collector()", "self.stat_col = {}")
    text, path = _project(tmp_path, trainer=trainer)
    assert _check(text, path)[0] == []
