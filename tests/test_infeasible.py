"""Conflicts joined from paths that cannot run together (analysis/infeasible.py)."""
import textwrap

import libcst as cst

from autodetach.analysis.decide import Problem
from autodetach.context import FileContext


def _kinds(src):
    src = textwrap.dedent(src)
    ctx = FileContext(cst.parse_module(src), "case.py", src)
    return [d.kind for d in ctx.analysis.diagnoses]


SEPARATE = """
def train(c, model, criterion, optimizer, optimizer_st, loader):
    for x, y, stop in loader:
        out, stop_out = model(x)
        stop_loss = criterion(stop_out, stop)
        loss = criterion(out, y)
        if {first}:
            loss += stop_loss
        loss.backward()
        optimizer.step()
        if {second}:
            stop_loss.backward()
            optimizer_st.step()
"""


def test_contradicting_arms_share_no_graph():
    src = SEPARATE.format(first="not c.separate_stopnet and c.stopnet", second="c.separate_stopnet")
    assert Problem.SHARED_FREED not in _kinds(src)


def test_arms_that_can_both_run_still_conflict():
    src = SEPARATE.format(first="c.stopnet", second="c.separate_stopnet")
    assert Problem.SHARED_FREED in _kinds(src)


def test_rebound_flag_is_not_fixed():
    src = SEPARATE.format(first="not c.separate_stopnet", second="c.separate_stopnet").replace(
        "        loss.backward()\n", "        loss.backward()\n        c = refresh(c)\n")
    assert Problem.SHARED_FREED in _kinds(src)


CONFIG_ARMS = """
def train(args, dis, opt, batches):
    for step, (real, fake) in enumerate(batches):
        if {test}:
            d_loss = (dis(real) - dis(fake)).mean()
        elif args.loss == "lsgan":
            d_loss = 0
            for score in (dis(real), dis(fake)):
                d_loss += (score ** 2).mean()
        elif args.loss == "standard":
            pass
        d_loss = d_loss / float(args.accumulate)
        d_loss.backward()
        opt.step()
"""


def test_name_unbound_before_loop_under_fixed_tests():
    assert Problem.CROSS_ITERATION not in _kinds(CONFIG_ARMS.format(test='args.loss == "hinge"'))


def test_name_unbound_before_loop_under_varying_test():
    assert Problem.CROSS_ITERATION in _kinds(CONFIG_ARMS.format(test="step % 2 == 0"))


def test_name_bound_before_loop_keeps_the_conflict():
    src = CONFIG_ARMS.format(test='args.loss == "hinge"').replace(
        "    for step,", "    d_loss = dis(batches[0][0]).mean()\n    for step,")
    assert Problem.CROSS_ITERATION in _kinds(src)


PARTLY_READ = """
def train(c, model, criterion, optimizer, optimizer_st, loader):
    for i, (x, y, stop) in enumerate(loader):
        out, stop_out = model(x)
        stop_loss = criterion(stop_out, stop)
        loss = criterion(out, y)
        if {test}:
            pass
        else:
            loss += stop_loss
        loss.backward()
        optimizer.step()
        if c.separate_stopnet:
            stop_loss.backward()
            optimizer_st.step()
"""


def test_else_of_a_partly_read_test_implies_nothing():
    # `i > 0 and flag` is false at i == 0 with the flag set: both arms run together.
    assert Problem.SHARED_FREED in _kinds(PARTLY_READ.format(test="i > 0 and c.separate_stopnet"))
    assert Problem.SHARED_FREED in _kinds(PARTLY_READ.format(test="not (i > 0 and not c.separate_stopnet)"))


def test_else_of_a_whole_test_still_contradicts():
    assert Problem.SHARED_FREED not in _kinds(PARTLY_READ.format(test="c.separate_stopnet"))
