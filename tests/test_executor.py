"""The executor seam: the local pool by default, dask as an optional extra
(`autodetach[dask]`). The dask test starts a real local cluster."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from autodetach.executors import LocalPool, WorkerDied
from autodetach.runner import Settings, run, run_unordered

from .legacy_tree import snapshot
from .test_cli import BAD, assert_one_line_error, run_cli, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEGACY = [os.path.join(ROOT, "corpus", "migration", "train_mnist_03.py")] + [
    os.path.join(ROOT, "corpus", "migration", "word_lm_03", n) for n in ("main.py", "model.py", "data.py")]


def legacy_tree(dest, repos=4):
    """Repositories of 0.3-era files; main.py imports model.py and data.py
    beside it (the analysis reads them)."""
    for r in range(repos):
        for src in LEGACY:
            d = os.path.join(dest, f"repo{r}", "train" if "mnist" in src else "lm")
            os.makedirs(d, exist_ok=True)
            shutil.copyfile(src, os.path.join(d, os.path.basename(src)))


def test_run_unordered_gives_every_file_once_and_run_keeps_the_order(tmp_path):
    paths = []
    for i in range(6):
        write(tmp_path / f"f{i}.py", BAD if i % 2 else "x = 1\n")
        paths.append(str(tmp_path / f"f{i}.py"))
    settings = Settings(codes=("AD201",), fix=True)
    got = dict(run_unordered(paths, settings, jobs=2))
    assert sorted(got) == list(range(6))
    assert [r.fixed for r in run(paths, settings, jobs=2)] == [0, 1, 0, 1, 0, 1]
    assert got[1].fixed == 1 and not got[1].findings  # fix mode: what remains


def _die_on_three(x):
    if x == 3:
        os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer would
    return x * 10


@pytest.mark.slow  # a process pool and its one-second watch
def test_local_pool_streams_in_batches_and_a_dead_worker_raises_not_hangs():
    pool = LocalPool(2, batch=3, window=2)
    assert sorted(pool.map_unordered(_die_on_three, iter([0, 1, 2, 4, 5, 6, 7]))) == [0, 10, 20, 40, 50, 60, 70]
    t0 = time.time()
    with pytest.raises(WorkerDied, match="a worker process died"):
        list(LocalPool(2).map_unordered(_die_on_three, range(8)))
    assert time.time() - t0 < 60


def test_scheduler_without_dask_executor_is_a_one_line_error(tmp_path):
    write(tmp_path / "a.py", BAD)
    res = run_cli(["--scheduler", "tcp://127.0.0.1:1", str(tmp_path)])
    assert_one_line_error(res, "--scheduler needs --executor dask")


def test_missing_dask_extra_is_a_one_line_error(tmp_path):
    write(tmp_path / "a.py", BAD)
    # An interpreter where `distributed` cannot be imported, as without the extra.
    code = ("import sys; sys.modules['distributed'] = None\n"
            "from autodetach.cli import main; main(sys.argv[1:])")
    res = subprocess.run([sys.executable, "-c", code, "--executor", "dask", "--fix", str(tmp_path)],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [
        "autodetach: error: --executor dask needs the dask extra: pip install 'autodetach[dask]'"]
    assert (tmp_path / "a.py").read_text() == BAD  # nothing written


def _worker_log_level():
    import logging

    return logging.getLogger("distributed.worker").getEffectiveLevel()


@pytest.mark.slow
def test_dask_workers_log_nothing_below_critical_and_close_restores_the_environment(monkeypatch):
    # A worker whose heartbeat met the closed scheduler at shutdown printed a
    # traceback on stderr (CI, 2026-11-28); the worker processes are silenced too.
    pytest.importorskip("distributed")
    from autodetach.executors import DaskExecutor

    monkeypatch.delenv("DASK_LOGGING__DISTRIBUTED", raising=False)
    ex = DaskExecutor(1)
    try:
        levels = ex.client.run(_worker_log_level)
    finally:
        ex.close()
    assert levels and set(levels.values()) == {50}
    assert "DASK_LOGGING__DISTRIBUTED" not in os.environ


@pytest.mark.slow
def test_dask_local_cluster_fixes_a_tree_byte_identical_to_the_local_pool(tmp_path):
    pytest.importorskip("distributed")
    for name in ("local", "dask"):
        legacy_tree(tmp_path / name / "tree")
    before = snapshot(tmp_path / "local" / "tree")
    outs = {}
    for name in ("local", "dask"):
        cmd = [sys.executable, "-m", "autodetach", "--no-cache", "-q", "--exit-zero", "-j", "2", "--fix",
               "--unsafe-fixes", "--output-format", "json", "-o", "report.json", "--executor", name, "tree"]
        res = subprocess.run(cmd, cwd=tmp_path / name, capture_output=True, text=True, timeout=300,
                             env=dict(os.environ, PYTHONPATH=ROOT))
        assert res.returncode == 0, res.stderr
        assert res.stderr == ""
        outs[name] = (snapshot(tmp_path / name / "tree"), (tmp_path / name / "report.json").read_bytes())
    assert outs["dask"][0] == outs["local"][0]
    assert outs["dask"][1] == outs["local"][1]
    assert outs["local"][0] != before  # the fixes were written
    summary = json.loads(outs["local"][1])["summary"]
    assert summary["files"] == 16 and summary["fixed"] > 16 and summary["errors"] == 0
