"""The step budget ends loops, not the process (verify/loops.py, budget.py),
and the uses of a rewrite (verify/uses.py): the rewrite of the scratch copy
keeps every line, nested loops stop as documented, the code after the loop
runs, loops that cannot be wrapped hit the backstop, and the timeout still
bounds a program whose tail runs forever."""
import ast
import textwrap

import pytest

from autodetach.verify.integrate import Verifier
from autodetach.verify.loops import LOOP, WHILE, rewrite
from autodetach.verify.uses import uses


def src(text: str) -> bytes:
    return textwrap.dedent(text).encode()


# ---------------------------------------------------------------- the rewrite

LOOPS = src("""\
    import torch
    for epoch in range(3):
        for i, (x, y) in enumerate(zip(range(4),
                                       range(4))):
            pass
        k = 0
        while k < 2 and \\
                epoch >= 0:
            k += 1
    def f(xs):
        return [x for x in xs]
    print("done")
""")


def test_rewrite_wraps_every_loop_and_keeps_every_line():
    new = rewrite(LOOPS)
    assert new is not None
    ast.parse(new)
    old_lines, new_lines = LOOPS.splitlines(), new.splitlines()
    assert len(old_lines) == len(new_lines)
    assert new.count(LOOP.encode()) == 2 and new.count(WHILE.encode()) == 1
    for a, b in zip(old_lines, new_lines):
        if b"for " not in a and b"while" not in a and not b.rstrip().endswith(b"):"):
            assert a == b
    # Comprehensions are left alone.
    assert b"return [x for x in xs]" in new


def test_rewrite_preserves_crlf_and_bom():
    data = b"\xef\xbb\xbffor i in range(2):\r\n    print(i)\r\n"
    new = rewrite(data)
    assert new.startswith(b"\xef\xbb\xbffor i in " + LOOP.encode() + b"((range(2)), 1):\r\n")
    assert new.endswith(b"    print(i)\r\n")


def test_rewrite_leaves_unparsable_and_loopless_files():
    assert rewrite(b"for i in range(3) print(i)\n") is None
    assert rewrite(b"x = 1\n") is None


# ---------------------------------------------------------------- uses

def test_uses_of_an_accumulator_reach_past_the_loop():
    code = src("""\
        losses = []
        for i in range(3):
            loss = f(i)
            losses.append(loss)
            print(losses[-1])
        print(sum(losses))
        losses = []
        print(losses)
    """)
    # Line 4 mutates `losses`: read on lines 5 and 6, not after the re-assignment on 7.
    assert uses(code, {4}) == {5, 6}


def test_uses_of_a_hidden_state_attribute_are_its_readers_in_the_class():
    code = src("""\
        class M:
            def forward(self, x):
                self.hidden = self.rnn(x, self.hidden)
                return self.hidden

            def reset(self):
                return self.hidden * 0
        def other(self):
            return self.hidden
    """)
    assert uses(code, {3}) == {4, 7}


def test_uses_of_a_global_include_functions_that_read_it():
    code = src("""\
        def report():
            return total / 2
        total = 0
        for i in range(3):
            total = total + i
        report()
    """)
    assert uses(code, {5}) == {2}


# ---------------------------------------------------------------- runs (torch)

def run_one(tmp_path, body: str, steps: int = 3, timeout: float = 120):
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent(body))
    old = script.read_bytes()
    with Verifier(steps=steps, timeout=timeout) as v:
        _, reqs = v.plan({str(script): (old, old, [])}, str(tmp_path), str(script))
        return v.execute([{"before": reqs["before"]}])[0]["before"]


HEAD = """\
    import torch
    torch.manual_seed(0)
    m = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    def step():
        loss = m(torch.randn(4, 3)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


@pytest.mark.slow
def test_nested_loops_inner_ends_at_the_budget_outer_after_two_rounds(tmp_path):
    run = run_one(tmp_path, HEAD + """\
    rounds = 0
    for epoch in range(100):
        for i, x in enumerate(range(1000)):
            step()
        rounds += 1
        evaluated = sum(1 for _ in range(50))
        seen = 0
        for x in range(50):  # an evaluation loop: no steps, never cut
            seen += 1
        print("epoch", epoch, "eval", seen)
    print("after the loop", rounds)
    """)
    assert run.status == "ok", run.failure()
    assert run.record["stopped_by"] == "loops"
    assert run.record["opt_steps"] == 6  # 2 rounds of 3
    assert "epoch 0 eval 50" in run.stdout and "epoch 1 eval 50" in run.stdout
    assert "after the loop 2" in run.stdout


@pytest.mark.slow
def test_while_loop_with_a_step_counter_ends_and_the_tail_runs(tmp_path):
    run = run_one(tmp_path, HEAD + """\
    n = 0
    while n < 10000:
        step()
        n += 1
    print("done", n)
    """)
    assert run.status == "ok", run.failure()
    assert "done 3" in run.stdout
    assert run.record["stopped_by"] == "loops"


@pytest.mark.slow
def test_inner_loop_over_optimizers_does_not_end_the_training_loop_early(tmp_path):
    run = run_one(tmp_path, HEAD + """\
    opt2 = torch.optim.SGD(m.parameters(), lr=0.01)
    for it in range(100):
        loss = m(torch.randn(4, 3)).pow(2).mean()
        loss.backward()
        for o in (opt, opt2):
            o.step()
            o.zero_grad()
    print("it", it)
    """, steps=5)
    assert run.status == "ok", run.failure()
    # Two rounds and at least the budget: 3 rounds of 2 steps.
    assert run.record["opt_steps"] == 6
    assert "it 2" in run.stdout


@pytest.mark.slow
def test_a_loop_that_cannot_be_wrapped_hits_the_backstop(tmp_path):
    run = run_one(tmp_path, HEAD + """\
    exec("for i in range(10000):\\n    step()\\n")
    print("never printed")
    """)
    assert run.status == "budget"
    assert run.record["stopped_by"] == "backstop"
    assert run.record["opt_steps"] == 30  # 10 budgets of 3
    assert "never printed" not in run.stdout


@pytest.mark.slow
def test_a_long_tail_after_the_loop_is_bounded_by_the_timeout(tmp_path):
    run = run_one(tmp_path, HEAD + """\
    import time
    for i in range(100):
        step()
    print("tail", flush=True)
    while True:
        time.sleep(0.05)
    """, timeout=4)
    assert run.status == "timeout"
    assert run.wall < 30
    assert "tail" in run.stdout


def test_uses_of_a_returned_value_reach_the_callers():
    code = src("""\
        def train(n):
            total = 0
            for i in range(n):
                total = total + step(i)
            return total
        def main():
            t = train(3)
            print(t.item())
        main()
    """)
    # Line 4 binds `total`: read on 4's own loop and 5 (the return), then the
    # call on 7 and the read of what it binds on 8.
    assert uses(code, {4}) == {5, 7, 8}


@pytest.mark.slow
def test_a_while_loop_in_a_function_called_per_epoch_gets_the_budget_each_time(tmp_path):
    run = run_one(tmp_path, HEAD + """\
    def epoch():
        n = 0
        while True:
            step()
            n += 1
        return n
    for e in range(100):
        print("epoch", e, epoch())
    print("end")
    """)
    assert run.status == "ok", run.failure()
    assert "epoch 0 3" in run.stdout and "epoch 1 3" in run.stdout and "end" in run.stdout
    assert run.record["opt_steps"] == 6


def test_uses_of_a_global_mutated_in_a_function_are_its_reads_anywhere():
    code = src("""\
        hist = []
        def step(loss):
            hist.append(loss)
        for i in range(3):
            step(i)
        print(hist[-1])
    """)
    assert uses(code, {3}) == {6}
