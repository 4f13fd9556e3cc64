"""The analysis reads files it was not given (a package's other modules, the
trainers beside a meter): a FIFO named `*.py` among them is skipped, never
opened for a read that waits for a writer (session 32's CI hung on one left by
test_discovery's unreadable-file test, found by remote_meters' package walk)."""
import os
import threading

import pytest

from autodetach.textio import read_regular

from .test_star_imports import _codes

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def _release(fifo):
    """Open the FIFO for writing: a reader blocked on it (the bug) wakes up."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass  # no reader waiting


def test_read_regular(tmp_path):
    (tmp_path / "a.py").write_bytes(b"x = 1\n")
    os.mkfifo(tmp_path / "f.py")
    assert read_regular(str(tmp_path / "a.py")) == b"x = 1\n"
    assert read_regular(str(tmp_path / "f.py")) is None
    assert read_regular(str(tmp_path)) is None
    assert read_regular(str(tmp_path / "missing.py")) is None


@pytest.mark.parametrize("where", ["beside", "above"])
def test_a_fifo_in_the_project_is_skipped(tmp_path, where):
    # test_star_imports' relative import in a package: the meters' callers are looked
    # for in the package's folder and in the folder holding it
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    fifo = str((pkg if where == "beside" else tmp_path) / "blocker.py")
    os.mkfifo(fifo)
    out = []
    worker = threading.Thread(target=lambda: out.append(
        _codes(pkg, "accuracy(out, out.detach())", imports="from .metrics import *")), daemon=True)
    worker.start()
    worker.join(60)
    _release(fifo)
    assert out == [[]], "the analysis waited on the FIFO"
