"""fix_code on a file whose first pass applies text fixes (AD209's `async=`): the report and
the fixing passes follow that first pass instead of starting again, with the same result."""
import glob
import os

import pytest

from autodetach import engine
from autodetach.engine import Options, check_source, fix_code, fix_reported

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEGACY = os.path.join(HERE, "corpus", "migration", "train_mnist_03.py")
ASYNC = "\n\ndef _move(x):\n    return x.cuda(async=True)\n"


def _sources():
    yield "train_mnist_03+async", open(LEGACY, encoding="utf-8").read() + ASYNC
    for path in sorted(glob.glob(os.path.join(HERE, "corpus", "AD209", "*.py"))):
        yield os.path.basename(path), open(path, encoding="utf-8").read()


def _old_way(source, unsafe):
    rules = engine._api_rules(["ALL"], None)
    report, _, _ = check_source(source, "t.py", rules, Options())
    return fix_reported(source, "t.py", rules, unsafe, report)


def _key(result):
    new, report = result
    return new, sorted((f.code, f.line, f.column, f.message, f.fixed) for f in report)


@pytest.mark.parametrize("name,source", list(_sources()), ids=[n for n, _ in _sources()])
@pytest.mark.parametrize("unsafe", [False, True])
def test_same_result_as_report_then_fix(name, source, unsafe):
    assert _key(fix_code(source, select=["ALL"], unsafe=unsafe, path="t.py")) == _key(_old_way(source, unsafe))


def test_fewer_passes(monkeypatch):
    source = open(LEGACY, encoding="utf-8").read() + ASYNC
    calls = []
    real = engine.run_rules

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "run_rules", counted)
    fix_code(source, select=["ALL"], unsafe=True, path="t.py")
    mine = len(calls)
    calls.clear()
    _old_way(source, True)
    # the old way ran the first pass three times (fix_code's, the report's, the fix's)
    assert mine < len(calls) - 1, (mine, len(calls))
