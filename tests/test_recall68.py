"""AD101 recall (session 34, recall68): replay memories, earlier slot stores of one
iteration, and sampling functions handed a project module."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.findings import NONE, SAFE, UNSAFE
from autodetach.registry import all_rules


def _check(tmp_path, src, name="case.py", **files):
    for other, text in files.items():
        (tmp_path / f"{other}.py").write_text(textwrap.dedent(text))
    text = textwrap.dedent(src)
    path = tmp_path / name
    path.write_text(text)
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return [f for f in findings if f.code.startswith("AD1")]


MEMORY = """
    import random
    from collections import namedtuple

    import torch
    import torch.nn as nn

    Transition = namedtuple("Transition", ("obs", "mean"))


    class Memory:
        def __init__(self):
            self.items = []

        def add(self, value):
            self.items.append(value)
    {sample}

    policy = nn.Linear(4, 2)
    opt = torch.optim.SGD(policy.parameters(), lr=0.1)
    memory = Memory()
    for it in range(10):
        obs = torch.randn(8, 4)
        mean = policy(obs)
        {store}
        loss = policy(obs).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""
SAMPLE = """
        def sample(self, n):
            return random.sample(self.items, n)
"""


def _memory(tmp_path, store, sample=SAMPLE):
    return _check(tmp_path, MEMORY.replace("{sample}", textwrap.indent(textwrap.dedent(sample), "        "))
                  .replace("{store}", store))


def test_replay_memory_store_is_ad101_with_unsafe_fix(tmp_path):
    found = _memory(tmp_path, "memory.add(mean)")
    assert [(f.code, f.fix) for f in found] == [("AD101", UNSAFE)], [(f.code, f.message) for f in found]
    assert "`Memory.sample` hands entries back" in found[0].message
    assert "inferred: what `Memory.add` keeps is read from its code" in found[0].message


def test_replay_memory_record_has_no_fix(tmp_path):
    found = _memory(tmp_path, "memory.add(Transition(obs=obs, mean=mean))")
    assert [(f.code, f.fix) for f in found] == [("AD101", NONE)], [(f.code, f.message) for f in found]


def test_replay_memory_detached_value_is_not_reported(tmp_path):
    assert _memory(tmp_path, "memory.add(mean.detach())") == []


def test_store_without_sample_stays_ad102(tmp_path):
    # no method hands the entries back: a meter, as before
    found = _memory(tmp_path, "memory.add(mean)", sample="")
    assert [f.code for f in found] == ["AD102"], [(f.code, f.message) for f in found]


def test_loss_into_replay_memory_stays_ad102(tmp_path):
    found = _memory(tmp_path, "step_loss = policy(obs).pow(2).mean()\n        memory.add(step_loss)")
    assert [f.code for f in found] == ["AD102"], [(f.code, f.message) for f in found]


def test_meter_record_gets_no_detach_of_the_namedtuple(tmp_path):
    # AD102's meter store used to offer `Transition(...).detach()`, which raises
    found = _memory(tmp_path, "memory.add(Transition(obs=obs, mean=mean))", sample="")
    assert [(f.code, f.fix) for f in found] == [("AD102", NONE)], [(f.code, f.message) for f in found]


SLOTS = """
    import torch
    import torch.nn as nn

    model = nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    metrics = torch.zeros(3, 40)
    for i in range(10):
        x, y = torch.randn(4, 4), torch.randint(0, 2, (4,))
        logits = model(x)
        prob = logits.softmax(1)
        loss = nn.functional.cross_entropy(logits, y)
        metrics[0, 4 * i:4 * i + 4] = y.float()
        metrics[1, 4 * i:4 * i + 4] = {first}
        metrics[2, 4 * i:4 * i + 4] = prob.max(1)[0]
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def test_every_slot_store_of_an_iteration_is_reported(tmp_path):
    found = _check(tmp_path, SLOTS.replace("{first}", "prob[:, 1]"))
    assert sorted((f.line, f.code, f.fix) for f in found) == [(14, "AD101", SAFE), (15, "AD101", SAFE)], \
        [(f.line, f.code, f.message) for f in found]


def test_detached_earlier_slot_is_not_reported(tmp_path):
    found = _check(tmp_path, SLOTS.replace("{first}", "prob[:, 1].detach()"))
    # (the store after it is not reported either: a detached slot write ends the chain the flow
    # follows, a gap that predates the earlier-store findings)
    assert 14 not in [f.line for f in found], [(f.line, f.code, f.message) for f in found]


MODEL = """
    import torch
    import torch.nn as nn


    class CharLSTM(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(4, 4)

        def forward(self, x, hidden):
            return self.lstm(x, hidden)

        def init_hidden(self):
            return (torch.zeros(1, 1, 4), torch.zeros(1, 1, 4))
"""
PLAIN = """
    import torch


    class Markov:
        def __call__(self, x, hidden):
            return x, hidden

        def init_hidden(self):
            return torch.zeros(4)
"""
SAMPLER = """
    import torch


    def sample(model, x, n):
        hidden = model.init_hidden()
        out = []
        for _ in range(n):
            y, hidden = model(x, hidden)
            out.append(y.argmax().item())
        return out
"""


def test_sampler_handed_project_module_is_reported(tmp_path):
    found = _check(tmp_path, SAMPLER, "sampler.py", model=MODEL)
    assert [(f.line, f.code, f.fix) for f in found] == [(9, "AD101", UNSAFE)], [(f.code, f.message) for f in found]
    assert "`model` is a module with parameters, since `hidden` comes from `model.init_hidden()`" in \
        found[0].message


def test_sampler_of_a_plain_class_is_not_reported(tmp_path):
    assert _check(tmp_path, SAMPLER, "sampler.py", model=PLAIN) == []


def test_sampler_called_under_no_grad_elsewhere_is_not_reported(tmp_path):
    runner = """
        import torch

        from model import CharLSTM
        from sampler import sample


        def main():
            with torch.no_grad():
                print(sample(CharLSTM(), torch.zeros(1, 1, 4), 5))
    """
    assert _check(tmp_path, SAMPLER, "sampler.py", model=MODEL, runner=runner) == []


def test_sampler_under_no_grad_decorator_is_not_reported(tmp_path):
    src = textwrap.dedent(SAMPLER).replace("def sample(", "@torch.no_grad()\ndef sample(")
    assert _check(tmp_path, src, "sampler.py", model=MODEL) == []


def test_sampler_state_from_argument_is_not_reported(tmp_path):
    # the state comes from the caller: nothing says what the model is
    src = textwrap.dedent(SAMPLER).replace("def sample(model, x, n):\n    hidden = model.init_hidden()",
                                           "def sample(model, x, n, hidden):")
    assert "init_hidden" not in src
    assert _check(tmp_path, src, "sampler.py", model=MODEL) == []


def test_dict_entries_are_not_earlier_slot_stores(tmp_path):
    # `log[name] = part + log[name]`: a running total per name (AD102's), not slots of one tensor
    src = """
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        log = {"a": 0.0, "b": 0.0}
        for i in range(10):
            out = model(torch.randn(4, 4))
            part_a = out.pow(2).mean()
            part_b = out.abs().mean()
            log["a"] = part_a + log["a"]
            log["b"] = part_b + log["b"]
            total = part_a + part_b
            opt.zero_grad()
            total.backward()
            opt.step()
    """
    found = _check(tmp_path, src)
    # one finding per entry, as keyed.py reports them; none added by the slot stores
    assert sorted(f.line for f in found) == [12, 13], [(f.line, f.code, f.message) for f in found]
