"""Graphs kept in storage that outlives the step: a dict whose entries the backwarded
loss sums (backwarded._summed_holders), a running error total (flow._metric_total), a
list on `self` that only `__init__` makes (self_storage.py). Variants of each shape, and
the negatives beside them."""
import textwrap

import libcst as cst

from autodetach.analysis.backwarded import _summed_names
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _found(src: str, codes=("AD101", "AD102")):
    rules = [r for r in all_rules() if r.code in codes]
    found, _, _ = check_source(textwrap.dedent(src), "train.py", rules, Options())
    return [(f.code, f.line, f.fix) for f in found]


def _names(expr: str) -> set:
    return _summed_names(cst.parse_expression(expr))


def test_the_containers_a_reduction_takes_whole():
    assert _names("sum(parts.values())") == {"parts"}
    assert _names("sum([v for v in parts.values()]) * 0 + det") == {"parts"}
    assert _names("sum(l for d in aux for l in d.values())") == {"aux"}
    assert _names("torch.stack(list(parts.values())).sum()") == {"parts"}
    assert _names("sum(terms) + reg") == {"terms"}
    assert _names("parts['a'] + parts['b']") == set()  # entries by key: only those are summed
    assert _names("sum(w * x for w, x in zip(ws, xs))") == set()  # a zip: not a container's entries
    assert _names("torch.mean(out)") == set()


SUMMED = """
import torch
from detlib import Criterion

def train(model, optimizer, loader, epochs):
    criterion = Criterion()
    for epoch in range(epochs):
        epoch_losses = {{k: 0.0 for k in criterion.keys}}
        for x, y in loader:
            parts = criterion(model(x), y)
            loss = {loss}
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_losses = {{k: epoch_losses[k] + parts[k]{cut} for k in epoch_losses}}
        print(epoch_losses)
"""


def test_a_dict_whose_entries_the_loss_sums_carries_the_graph():
    for loss in ("sum(parts.values())", "sum(v for v in parts.values())", "sum([v for v in parts.values()]) * 0",
                 "torch.stack(list(parts.values())).sum()"):
        assert _found(SUMMED.format(loss=loss, cut="")) == [("AD102", 15, "none")], loss
        assert _found(SUMMED.format(loss=loss, cut=".item()")) == [], loss
    # one entry backwarded by key says nothing about the others: the dict stays unseen code's
    assert _found(SUMMED.format(loss="parts['total']", cut="")) == []


def test_a_list_of_terms_kept_whole_and_a_per_key_total():
    listed = """
    import torch
    from detlib import head_losses

    def train(model, optimizer, loader):
        history = []
        for x, y in loader:
            terms = head_losses(model(x), y)
            loss = sum(terms)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history.append(terms)
        return len(history)
    """
    assert _found(listed) == [("AD102", 13, "none")]
    per_key = """
    import torch
    from detlib import Criterion

    def train(model, optimizer, loader):
        criterion = Criterion()
        running = {}
        for x, y in loader:
            parts = criterion(model(x), y)
            loss = sum(parts[k] for k in parts)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            for k, v in parts.items():
                running[k] = running.get(k, 0) + v
        print(running)
    """
    found = _found(per_key)
    assert [(c, line) for c, line, _ in found] == [("AD101", 15)]
    assert found[0][2] == "unsafe"  # that the entries carry a graph is inferred


TOTAL = """
import torch

def train_epoch(model, optimizer, loader):
    total = torch.tensor(0.0)
    for x, y in loader:
        out = model(x)
        loss = (out - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += {added}
    print(total.item())
"""


def test_a_running_error_of_the_output_is_a_logged_total():
    for added in ("(out - y).abs().sum()", "torch.abs(out.sum(1) - y.sum(1)).sum()", "torch.sum((out - y) ** 2)",
                  "(y - out).pow(2).mean()"):
        assert [c for c, _, _ in _found(TOTAL.format(added=added))] == ["AD102"], added
    # no error (an activation energy) of an output the step's backward walks: one number kept
    # for the log all the same, AD102 (logged_stats.py); one number per row: still a kept graph, AD101
    assert [c for c, _, _ in _found(TOTAL.format(added="out.pow(2).mean()"))] == ["AD102"]
    assert [c for c, _, _ in _found(TOTAL.format(added="(out - y).abs().sum(dim=1)"))] == ["AD101"]
    assert _found(TOTAL.format(added="(out - y).abs().sum().item()")) == []


LEARNER = """
import torch

class Learner:
    def __init__(self, net):
        self.net = net
        self.{attr} = []

    def {method}(self, x, retain):
{reset}        for i in range(3):
            loss = self.net(x).pow(2).mean()
            loss.backward(retain_graph=retain)
            self.{attr}{add}
        return self.{attr}
{other}"""


def _learner(attr="losses", method="__call__", reset="", add=".append(loss)", other=""):
    return _found(LEARNER.format(attr=attr, method=method, reset=reset, add=add.replace("ATTR", attr),
                                 other=textwrap.indent(textwrap.dedent(other), "    ")))


def test_a_list_on_self_that_only_init_makes_grows_across_calls():
    for attr, method in (("losses", "__call__"), ("loss_log", "unroll"), ("history", "step")):
        found = _learner(attr=attr, method=method)
        assert found == [("AD102", 13, "unsafe")], (attr, method)
    assert _learner(add=" += [loss]") == [("AD102", 13, "unsafe")]


def test_a_list_on_self_that_is_emptied_or_made_again_is_the_callers():
    assert _learner(reset="        self.losses = []\n") == []
    assert _learner(other="""
        def reset(self):
            self.losses.clear()
    """) == []
    assert _learner(other="""
        def new_epoch(self):
            self.losses = []
    """) == []
    assert _learner(other="""
        def new_epoch(self):
            del self.losses[:]
    """) == []


LOGGED = """
import torch

class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.history = []
        self.stats = {{"loss": []}}

    def batch_step(self, x, y):
        loss = (self.model(x) - y).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.batch_loss = loss
        self.log_batch()

    def log_batch(self):
        {store}

    def fit(self, loader):
        for x, y in loader:
            self.batch_step(x, y)
"""


def test_a_loss_kept_on_self_and_logged_by_another_method():
    for store in ("self.history.append(self.batch_loss)", "self.history += [self.batch_loss]",
                  'self.stats["loss"] += [self.batch_loss]'):
        assert _found(LOGGED.format(store=store)) == [("AD102", 20, "safe")], store
    for store in ("self.history.append(self.batch_loss.item())", "print(self.batch_loss.item())",
                  "self.history.append(float(self.batch_loss))"):
        assert _found(LOGGED.format(store=store)) == [], store


def test_a_log_method_that_also_stores_under_a_key_of_the_same_dict():
    # `self.stats[k] = ...` in the method walked at the call names `self.stats` among what it assigns;
    # state on `self` outlives the call, so the loss list under another key still grows
    for before in ('self.stats["n"] = 0', 'self.stats["seen"] = []', 'self.stats[self.model] = 1'):
        store = before + '\n        self.stats["loss"] += [self.batch_loss]'
        # under a computed key, which entry the store replaced is not known: the fix is then unsafe
        assert [f[:2] for f in _found(LOGGED.format(store=store))] == [("AD102", 21)], before
        store = before + '\n        self.stats["loss"] += [self.batch_loss.item()]'
        assert _found(LOGGED.format(store=store)) == [], before


def test_an_add_through_a_local_name_for_self_state_or_a_nested_entry():
    # a local bound to an entry of `self` state, or stored into one, names that state (self_views.py);
    # `self.stats["train"]["loss"] += [...]` adds into `self.stats` as `self.stats["loss"] += [...]` does
    kept = {
        'self.stats["train"]["loss"] += [{loss}]': 20,
        'stat = self.stats["train"]\n        stat["loss"] += [{loss}]': 21,
        'stat = {{"loss": []}}\n        self.stats["train"] = stat\n        stat["loss"] += [{loss}]': 22,
        'stat = self.stats["train"]\n        stat["loss"]["all"] += [{loss}]': 21,
    }
    for store, line in kept.items():
        assert [f[:2] for f in _found(LOGGED.format(store=store.format(loss="self.batch_loss")))] == \
            [("AD102", line)], store
        assert _found(LOGGED.format(store=store.format(loss="self.batch_loss.item()"))) == [], store
    for store in ('stat = {"loss": []}\n        stat["loss"] += [self.batch_loss]',
                  'stat = self.stats["train"]\n        stat = {"loss": []}\n        stat["loss"] += [self.batch_loss]'):
        # a dict of the call's own, dropped when it returns
        assert _found(LOGGED.format(store=store.replace("{", "{{").replace("}", "}}"))) == [], store
