"""The step budget, ending loops (the child side of loops.py).

Each wrapped loop asks, before each round, whether to go on. A round is
one pass of the loop body; a step is an optimizer step (or, in a program
that has made none, half a backward call: the old budget of 2N backward
calls). Steps are attributed to the loop that started a round last (the
innermost one running). A loop instance stops when it has seen the budget
of steps since it started and either all those steps were its own (the
inner loop) or it has run two rounds with steps (an outer loop: epochs).
Loops without steps (evaluation, data preparation) are never cut. The
program then goes on: epoch summaries, evaluation, the final print.

Loaded into user processes: imports nothing outside the standard library."""
from __future__ import annotations

import sys


class _Instance:
    __slots__ = ("budget", "start_steps", "start_back", "last_act", "own_at_tick", "own", "rounds", "nested",
                 "done", "frame", "seq")

    def __init__(self, budget: "LoopBudget") -> None:
        rec = budget.rec
        self.budget = budget
        self.start_steps = rec.opt_steps
        self.start_back = rec.backward_calls
        self.last_act = budget.activity
        self.own = 0
        self.own_at_tick = 0
        self.rounds = 0
        self.nested = False
        self.done = False
        self.frame = 0
        self.seq = 0

    def go_on(self) -> bool:
        """Called before each round (and once more at the natural end)."""
        b = self.budget
        if b.activity == self.last_act:  # no step since the last round: nothing changed
            if self.done:
                return False
            b.current = self
            return True
        if self.done:
            return False
        act = b.activity - self.last_act
        if act:
            self.rounds += 1
            if self.own - self.own_at_tick < act:
                self.nested = True
        self.last_act = b.activity
        self.own_at_tick = self.own
        rec = b.rec
        if rec.opt_steps:
            progress = rec.opt_steps - self.start_steps
        else:
            progress = (rec.backward_calls - self.start_back) / 2
        if progress >= rec.steps_budget and (not self.nested or self.rounds >= 2):
            self.done = True
            b.cut += 1
            rec.stopped_by = rec.stopped_by or "loops"
            return False
        b.current = self
        return True


class LoopBudget:
    def __init__(self, rec) -> None:
        self.rec = rec
        self.activity = 0  # backward calls + optimizer steps
        self.current: "_Instance | None" = None
        self.cut = 0
        self.seq = 0
        self._while: dict = {}  # loop id -> _Instance
        self._tick: dict = {}  # loop id -> seq of its last round

    def event(self) -> None:
        """A backward call or an optimizer step happened."""
        self.activity += 1
        if self.current is not None:
            self.current.own += 1

    def loop(self, iterable, n: int):
        """`for x in ITER` becomes `for x in loop(ITER, n)`."""
        it = iter(iterable)
        inst = _Instance(self)
        return self._gen(it, inst, n)

    def _gen(self, it, inst, n):
        go_on, tick, nxt = inst.go_on, self._tick, it.__next__
        while go_on():
            self.seq += 1
            tick[n] = self.seq
            try:
                x = nxt()
            except StopIteration:
                return
            yield x

    def while_(self, n: int, enclosing: tuple, cond) -> bool:
        """`while COND` becomes `while while_(n, enclosing, (COND))`."""
        ok = bool(cond)
        inst = self._while.get(n)
        frame = id(sys._getframe(1))
        last = self._tick.get(n, 0)
        if inst is None or inst.frame != frame or any(self._tick.get(e, 0) > last for e in enclosing):
            inst = self._while[n] = _Instance(self)
            inst.frame = frame
        if not ok:
            self._while.pop(n, None)
            return False
        self.seq += 1
        self._tick[n] = self.seq
        if inst.go_on():
            return True
        self._while.pop(n, None)  # ended: entering the loop again starts afresh
        return False
