"""A per-step cache on `self` that a training method joins, trains on in part and
stores back as a slice of the join (analysis/cache_slices.py): AD101, no fix."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.findings import NONE
from autodetach.registry import all_rules

POLICY = """
import torch


class Policy:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self._log_probs = []

    def __call__(self, state):
        dist = torch.distributions.Categorical(logits=self.model(state))
        action = dist.sample()
        self._log_probs.append(dist.log_prob(action))
        return action

    def reinforce(self, errors):
        log_probs = torch.cat(self._log_probs)
        batch_size = len(errors)
        STORE
        log_probs = log_probs[:batch_size]
        loss = -torch.dot(log_probs, errors) / batch_size
        loss.backward(retain_graph=True)
        self.optimizer.step()
        self.optimizer.zero_grad()
"""


def _findings(store, extra=""):
    source = textwrap.dedent(POLICY).replace("STORE", store).replace("        EXTRA", extra)
    if extra:
        source = source.replace("        batch_size = len(errors)\n", "        batch_size = len(errors)\n" + extra)
    findings, _, _ = check_source(source, "policy.py", all_rules(), Options())
    return [f for f in findings if f.code in ("AD101", "AD104")]


def test_slice_of_the_join_stored_back_is_reported_without_fix():
    found = _findings("self._log_probs = [log_probs[batch_size:]]")
    assert [(f.code, f.line) for f in found] == [("AD101", 20)], [(f.code, f.line, f.message[:80]) for f in found]
    assert found[0].fix == NONE
    assert "inferred" in found[0].message and "self._log_probs[n:]" in found[0].message


def test_bare_slice_is_reported_too():
    assert [(f.code, f.line) for f in _findings("self._log_probs = log_probs[batch_size:]")] == [("AD101", 20)]


def test_whole_items_kept_are_not_reported():
    assert not [f for f in _findings("self._log_probs = self._log_probs[batch_size:]") if f.code == "AD101"]


def test_detached_slice_is_not_reported():
    assert not [f for f in _findings("self._log_probs = [log_probs[batch_size:].detach()]") if f.code == "AD101"]


def test_not_reported_when_the_method_runs_a_network():
    # the loss's graph may come from the network alone: the joined entries may be plain numbers
    extra = "        weights = self.model(errors)\n        errors = errors * weights\n"
    assert not [f for f in _findings("self._log_probs = [log_probs[batch_size:]]", extra) if f.code == "AD101"]


def test_not_reported_without_a_method_that_adds_entries():
    source = textwrap.dedent(POLICY).replace("STORE", "self._log_probs = [log_probs[batch_size:]]").replace(
        "self._log_probs.append(dist.log_prob(action))", "self.last = dist.log_prob(action)")
    findings, _, _ = check_source(source, "policy.py", all_rules(), Options())
    assert not [f for f in findings if f.code == "AD101" and "slice" in f.message]


def test_not_reported_when_the_entries_added_are_plain():
    # rewards kept as fresh tensors: the loss's graph comes from elsewhere, the slice carries none
    for added in ("torch.tensor(float(action))", "dist.log_prob(action).detach()", "dist.log_prob(action).item()"):
        source = textwrap.dedent(POLICY).replace("STORE", "self._log_probs = [log_probs[batch_size:]]").replace(
            "self._log_probs.append(dist.log_prob(action))", f"self._log_probs.append({added})")
        findings, _, _ = check_source(source, "policy.py", all_rules(), Options())
        assert not [f for f in findings if f.code == "AD101" and "slice" in f.message], added


def test_entries_handed_to_an_adder_method_are_read_at_its_calls():
    adder = "self.cache(dist.log_prob(action))\n        return action\n\n    def cache(self, value):\n" \
            "        self._log_probs.append(value)"
    base = textwrap.dedent(POLICY).replace("STORE", "self._log_probs = [log_probs[batch_size:]]")
    base = base.replace("self._log_probs.append(dist.log_prob(action))\n        return action", adder)
    findings, _, _ = check_source(base, "policy.py", all_rules(), Options())
    assert [f.line for f in findings if f.code == "AD101"] == [23]
    plain = base.replace("self.cache(dist.log_prob(action))", "self.cache(dist.log_prob(action).detach())")
    findings, _, _ = check_source(plain, "policy.py", all_rules(), Options())
    assert not [f for f in findings if f.code == "AD101"]


def test_views_of_the_join_bound_to_names_are_followed():
    split = "used, rest = log_probs.split([batch_size, len(log_probs) - batch_size])\n" \
            "        self._log_probs = [rest]"
    found = _findings(split)
    assert [(f.code, f.line) for f in found] == [("AD101", 21)], [(f.code, f.line, f.message[:80]) for f in found]
    narrow = "self._log_probs = [torch.narrow(log_probs, 0, batch_size, len(log_probs) - batch_size)]"
    assert [(f.code, f.line) for f in _findings(narrow)] == [("AD101", 20)]


def test_a_name_rebound_to_a_fresh_value_is_no_view():
    fresh = "rest = log_probs[batch_size:]\n        rest = torch.zeros(3)\n        self._log_probs = [rest]"
    assert not [f for f in _findings(fresh) if f.code == "AD101"]
