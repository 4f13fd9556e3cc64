"""Recurrent state a method's loop threads through another method of its own
object (`action, hidden = self.step(obs, hidden)`), in a file that may train
nothing, where some call of the loop's method runs it with gradients on
(analysis/own_steps.py, read from threaded_state.py). Issue 8."""
import os
import textwrap

from autodetach.findings import UNSAFE
from tests.test_recall70 import _ad101, _write  # the same writer and AD101 reader

RUNNER = """
import torch
import torch.nn as nn


class CellNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(4, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, x, h):
        h = self.cell(x, h)
        return self.head(h), h


class Runner:
    def __init__(self):
        self.net = CellNet()

    def step(self, obs, hidden):
{step}

    def episode(self, n):
        hidden = torch.zeros(1, 8)
        obs = torch.randn(1, 4)
        total = 0
        for t in range(n):
            action, hidden = self.step(obs, hidden)
{extra}
            obs = torch.randn(1, 4) + 0.1 * action
            total += action
        return total
"""

STEP = """\
        scores, new_hidden = self.net(obs, hidden)
        return scores.argmax().item(), new_hidden"""


def _runner(tmp_path, caller="", step=STEP, extra="", name="rollout.py", check=True):
    _write(tmp_path / name, RUNNER.format(step=step, extra=extra) + textwrap.dedent(caller))
    return _ad101(tmp_path / name) if check else None


def test_script_calling_the_loop_with_gradients_on_reported_unsafe(tmp_path):
    found = _runner(tmp_path, caller="""
        runner = Runner()
        print(runner.episode(20))
    """)
    assert len(found) == 1, [f.message for f in found]
    f = found[0]
    assert f.fix == UNSAFE and "self.step(obs, hidden)" in f.message and "inferred" in f.message
    assert "`episode` runs with gradients on" in f.message and "rollout.py line" in f.message


def test_caller_in_another_file_that_imports_the_class(tmp_path):
    _runner(tmp_path, check=False)
    _write(tmp_path / "play.py", """
        from rollout import Runner

        def main():
            runner = Runner()
            return runner.episode(100)

        main()
    """)
    found = _ad101(tmp_path / "rollout.py")
    assert len(found) == 1 and found[0].fix == UNSAFE, [f.message for f in found]
    assert "play.py line" in found[0].message


def test_one_caller_guarded_one_not_is_reported(tmp_path):
    # the training script wraps the rollout in no_grad, the test script does not (world-models)
    _runner(tmp_path, check=False)
    _write(tmp_path / "train_ctrl.py", """
        import torch
        from rollout import Runner

        with torch.no_grad():
            Runner().episode(10)
    """)
    _write(tmp_path / "test_ctrl.py", """
        from rollout import Runner

        Runner().episode(10)
    """)
    found = _ad101(tmp_path / "rollout.py")
    assert len(found) == 1 and "test_ctrl.py" in found[0].message, [f.message for f in found]


def test_callers_that_turn_gradients_off_not_reported(tmp_path):
    for caller in ("""
        with torch.no_grad():
            Runner().episode(10)
    """, """
        @torch.no_grad()
        def evaluate(runner):
            return runner.episode(10)

        evaluate(Runner())
    """, """
        def evaluate(runner):
            return runner.episode(10)

        with torch.no_grad():
            evaluate(Runner())
    """, """
        class Evaluator:
            def run(self, runner):
                return runner.episode(10)     # a method's callers are not read
    """):
        where = tmp_path / str(len(os.listdir(tmp_path)))
        where.mkdir()
        assert not _runner(where, caller=caller), caller


def test_no_caller_seen_not_reported(tmp_path):
    assert not _runner(tmp_path)


def test_caller_of_another_class_with_the_same_name_is_not_a_caller(tmp_path):
    _runner(tmp_path, check=False)
    _write(tmp_path / "other.py", """
        class Runner:
            def episode(self, n):
                return n

        Runner().episode(3)
    """)
    assert not _ad101(tmp_path / "rollout.py")


def test_frozen_network_in_the_calling_file_not_reported(tmp_path):
    assert not _runner(tmp_path, caller="""
        runner = Runner()
        runner.net.requires_grad_(False)
        runner.episode(10)
    """)


def test_state_cut_or_reset_in_the_loop_not_reported(tmp_path):
    for i, extra in enumerate(("            hidden = hidden.detach()", "            hidden = torch.zeros(1, 8)")):
        (tmp_path / str(i)).mkdir()
        assert not _runner(tmp_path / str(i), caller="Runner().episode(10)\n", extra=extra), extra


def test_step_whose_outputs_are_tensors_not_reported(tmp_path):
    # the scores may be what a later backward trains through the chain (BPTT)
    step = """\
        scores, new_hidden = self.net(obs, hidden)
        return scores, new_hidden"""
    assert not _runner(tmp_path, caller="Runner().episode(10)\n", step=step)


def test_step_that_keeps_something_on_the_object_not_reported(tmp_path):
    step = """\
        scores, new_hidden = self.net(obs, hidden)
        self.last_scores = scores
        return scores.argmax().item(), new_hidden"""
    assert not _runner(tmp_path, caller="Runner().episode(10)\n", step=step)


def test_step_under_no_grad_not_reported(tmp_path):
    step = """\
        with torch.no_grad():
            scores, new_hidden = self.net(obs, hidden)
        return scores.argmax().item(), new_hidden"""
    assert not _runner(tmp_path, caller="Runner().episode(10)\n", step=step)


def test_step_through_a_helper_method_and_a_while_loop(tmp_path):
    _write(tmp_path / "nets.py", """
        import torch
        import torch.nn as nn

        class Policy(nn.Module):
            def __init__(self):
                super().__init__()
                self.cell = nn.LSTMCell(5, 12)
                self.head = nn.Linear(12, 3)

            def forward(self, obs, state):
                state = self.cell(obs, state)
                return self.head(state[0]), state
    """)
    _write(tmp_path / "evaluate.py", """
        import torch
        from nets import Policy

        class Evaluator:
            def __init__(self):
                self.policy = Policy().to("cpu")

            def _advance(self, obs, state):
                logits, state = self.policy(obs, state)
                return logits, state

            def act(self, obs, state):
                logits, next_state = self._advance(obs, state)
                return int(logits.argmax(-1)), next_state

            def play(self, max_steps):
                state = (torch.zeros(1, 12), torch.zeros(1, 12))
                obs, steps = torch.randn(1, 5), 0
                while steps < max_steps:
                    action, state = self.act(obs, state)
                    obs = torch.roll(obs, action)
                    steps += 1
                return steps

        def main():
            return Evaluator().play(50)

        if __name__ == "__main__":
            main()
    """)
    found = _ad101(tmp_path / "evaluate.py")
    assert len(found) == 1 and found[0].fix == UNSAFE, [f.message for f in found]
    assert "self.act(obs, state)" in found[0].message


SAMPLER = """
import torch
import torch.nn as nn


class CharRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.rnn = nn.GRU(8, 16, batch_first=True)
        self.out = nn.Linear(16, 20)

    def forward(self, x, h):
        y, h = self.rnn(self.emb(x), h)
        return self.out(y), h


model = CharRNN()
{setup}

def generate(n):
    x = torch.zeros(1, 1, dtype=torch.long)
    h = None
    chars = []
    for i in range(n):
        logits, h = model(x, h)
        x = logits.argmax(-1)
        chars.append(int(x))
    return chars

{main}
"""

SCRIPT_LOOP = """
import torch
import torch.nn as nn


class CharRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRUCell(4, 16)
        self.out = nn.Linear(16, 4)

    def forward(self, x, h):
        h = self.rnn(x, h)
        return self.out(h), h


net = CharRNN()
{setup}
h = torch.zeros(1, 16)
x = torch.zeros(1, 4)
for step in range(100):
    scores, h = net(x, h)
    x = torch.nn.functional.one_hot(scores.argmax(-1), 4).float()
"""


def _sampler(tmp_path, setup="", main="print(generate(10))\n"):
    _write(tmp_path / "sample.py", SAMPLER.format(setup=setup, main=main))
    return _ad101(tmp_path / "sample.py")


def test_script_loop_in_a_file_that_trains_nothing_reported_unsafe(tmp_path):
    _write(tmp_path / "gen.py", SCRIPT_LOOP.format(setup=""))
    found = _ad101(tmp_path / "gen.py")
    assert len(found) == 1 and found[0].fix == UNSAFE, [f.message for f in found]
    assert "net(x, h)" in found[0].message and "the script's loop runs as written" in found[0].message


def test_script_loop_with_gradients_turned_off_not_reported(tmp_path):
    for i, setup in enumerate(("torch.set_grad_enabled(False)", "net.requires_grad_(False)",
                               "for p in net.parameters():\n    p.requires_grad = False")):
        (tmp_path / str(i)).mkdir()
        _write(tmp_path / str(i) / "gen.py", SCRIPT_LOOP.format(setup=setup))
        assert not _ad101(tmp_path / str(i) / "gen.py"), setup
    (tmp_path / "w").mkdir()
    text = SCRIPT_LOOP.format(setup="").replace("    scores, h = net(x, h)",
                                                "    with torch.no_grad():\n        scores, h = net(x, h)")
    _write(tmp_path / "w" / "gen.py", text)
    assert not _ad101(tmp_path / "w" / "gen.py")


def test_sampling_function_called_with_gradients_on_reported(tmp_path):
    found = _sampler(tmp_path, main="""
def main():
    print(generate(50))


if __name__ == "__main__":
    main()
""")
    assert len(found) == 1 and found[0].fix == UNSAFE, [f.message for f in found]
    assert "`generate` runs with gradients on where it is called" in found[0].message


def test_sampling_function_whose_callers_turn_gradients_off_not_reported(tmp_path):
    for i, main in enumerate(("""
@torch.no_grad()
def main():
    print(generate(50))

main()
""", """
def main():
    print(generate(50))

with torch.no_grad():
    main()
""", """
with torch.inference_mode():
    print(generate(5))
""", "")):
        (tmp_path / str(i)).mkdir()
        assert not _sampler(tmp_path / str(i), main=main), main


def test_sampling_function_called_from_another_file(tmp_path):
    _write(tmp_path / "sample.py", SAMPLER.format(setup="", main=""))
    _write(tmp_path / "run.py", """
        from sample import generate

        print(generate(30))
    """)
    found = _ad101(tmp_path / "sample.py")
    assert len(found) == 1 and "run.py line" in found[0].message, [f.message for f in found]
    (tmp_path / "g").mkdir()
    _write(tmp_path / "g" / "sample.py", SAMPLER.format(setup="", main=""))
    _write(tmp_path / "g" / "run.py", """
        import torch
        from sample import generate

        with torch.no_grad():
            print(generate(30))
    """)
    assert not _ad101(tmp_path / "g" / "sample.py")


def test_step_returning_an_array_in_a_while_loop_that_returns(tmp_path):
    # world-models' rollout: `return action.squeeze().cpu().numpy(), next_hidden`, the loop ends by `return`
    step = """\
        scores, new_hidden = self.net(obs, hidden)
        return scores.squeeze().cpu().numpy(), new_hidden"""
    text = RUNNER.format(step=step, extra="").replace("        for t in range(n):", "        while True:")
    text = text.replace("            total += action\n", "            total += 1\n            if total > n:\n"
                                                          "                return total\n")
    _write(tmp_path / "rollout.py", text + "\nRunner().episode(10)\n")
    found = _ad101(tmp_path / "rollout.py")
    assert len(found) == 1 and found[0].fix == UNSAFE, [f.message for f in found]
