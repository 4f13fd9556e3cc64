"""AD106 where the loop is in one method and the state is read in another it
calls (`train_stream` -> `self.train_chunk`): the detach goes at the start of
the called method, only when the loop around the call calls it once per pass."""
import os

from autodetach.engine import Options, check_source
from autodetach.registry import by_code

from .corpus import CORPUS

with open(os.path.join(CORPUS, "AD106", "trainer_state_loop_in_method.py"), encoding="utf-8") as fh:
    CASE = fh.read()
CALL = "            loss = self.train_chunk(stream[:, i:i + self.bptt], stream[:, i + 1:i + 1 + self.bptt])\n"


def _found(src):
    found, _, _ = check_source(src, "case.py", [by_code()["AD106"]], Options())
    return [f for f in found if f.code == "AD106"]


def test_detach_at_the_start_of_the_called_method_is_unsafe_and_says_why():
    found = _found(CASE)
    assert [f.fix for f in found] == ["unsafe"]
    assert "`self.train_chunk()` (line 47) is taken to start a new batch" in found[0].message


def test_no_fix_when_a_pass_calls_it_twice():
    assert CALL in CASE
    assert not [f for f in _found(CASE.replace(CALL, CALL + CALL)) if f.fix != "none"]


def test_an_inner_loop_around_the_call_is_the_loop_it_crosses():
    found = _found(CASE.replace(CALL, "            for _ in range(2):\n    " + CALL))
    assert [f.fix for f in found] == ["unsafe"]
    assert "is taken to start a new batch each time the loop at line 47" in found[0].message
