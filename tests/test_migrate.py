"""`autodetach migrate`: fixes in place, the report, resume (also after a
SIGKILL), and the end-to-end migration of corpus/migration/sensor_lstm_03."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from autodetach.cli import main
from autodetach.engine import fix_code
from autodetach.migrate.chart import render_svg
from autodetach.migrate.report import headline, summarize
from autodetach.migrate.state import State
from autodetach.migrate.work import python2_hint
from autodetach.registry import all_rules
from autodetach.runner import Settings, display_path, process_file, run_bytes

from .corpus import CORPUS, ROOT
from .legacy_tree import PY2, TINY, make_tree

CLEAN = "import torch\n\n\ndef f(x):\n    return x.detach()\n"


def _migrate(*args) -> int:
    with pytest.raises(SystemExit) as exc:
        main(["migrate", "--no-progress", "-j", "1", *map(str, args)])
    return exc.value.code


def _tree(tmp_path):
    root = tmp_path / "legacy"
    (root / "repo_a" / ".git").mkdir(parents=True)
    (root / "repo_a" / "pkg").mkdir()
    (root / "plain").mkdir()
    files = {
        root / "repo_a" / "pkg" / "one.py": TINY.format(k=1),
        root / "repo_a" / "two.py": TINY.format(k=2),
        root / "plain" / "three.py": TINY.format(k=3),
        root / "plain" / "clean.py": CLEAN,
        root / "plain" / "old.py": PY2,
    }
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return root, files


def _report(out):
    return json.loads((out / "report.json").read_text(encoding="utf-8"))


@pytest.mark.slow  # several CLI runs (2-8 s)
def test_migrate_fixes_in_place_and_writes_the_report(tmp_path):
    root, files = _tree(tmp_path)
    out = tmp_path / "out"
    assert _migrate(root, "--report", out) == 1  # the unsafe loss.data[0] reads are left
    codes = [r.code for r in all_rules()]
    for path, text in files.items():
        expected = fix_code(text, select=codes)[0] if path.name != "old.py" else text
        assert path.read_text(encoding="utf-8") == expected, path
    rep = _report(out)
    assert rep["totals"] == {"files": 5, "changed": 3, "unchanged": 1, "failed": 1, "findings": 9, "fixed": 6,
                             "left": 3, "unsafe": 0, "unparseable": 1}
    repos = {r["repository"]: r for r in rep["repositories"]}
    assert set(repos) == {display_path(str(root / "repo_a")), display_path(str(root / "plain"))}
    assert repos[display_path(str(root / "repo_a"))]["changed"] == 2
    old = next(f for f in rep["files"] if f["path"].endswith("old.py"))
    assert old["python2"] and "print" in old["parse_error"][1]
    left = [x for f in rep["files"] for x in f["left"]]
    assert {x["code"] for x in left} == {"AD203"} and all(x["fix"] == "unsafe" and x["why"] for x in left)
    rules = {r["code"]: r for r in rep["rules"]}
    assert rules["AD201"]["fixed"] == 3 and rules["AD201"]["url"].endswith("/docs/rules/AD201.md")

    md = (out / "report.md").read_text(encoding="utf-8")
    assert md.startswith("# Migration report\n\n- 5 Python files in 2 repositories: 3 changed")
    assert "2to3" in md and "old.py:5" in md and "](https://" in md
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<script" not in page and "<link" not in page and "src=" not in page
    assert page.index("summary") < page.index("Per repository")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed" in page
    else:
        assert page.count("<svg") == 1 and (out / "chart.svg").exists()
    state = (out / "state.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(state) == 1 + 5 and "settings" in json.loads(state[0])


@pytest.mark.slow  # several CLI runs (2-8 s)
def test_a_second_run_changes_nothing_and_takes_edits(tmp_path):
    root, files = _tree(tmp_path)
    out = tmp_path / "out"
    _migrate(root, "--report", out)
    first = _report(out)
    stamps = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    _migrate(root, "--report", out)
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files} == stamps
    again = _report(out)
    assert again["options"]["resumed_files"] == 5
    assert again["totals"] == first["totals"] and again["rules"] == first["rules"]

    # A person edits a migrated file: it is taken as it is now, the others stay done.
    edited = root / "plain" / "three.py"
    added = "\nfrom torch.autograd import Variable\n\n\ndef g(y):\n    return Variable(y.data)\n"
    edited.write_text(edited.read_text(encoding="utf-8") + added, encoding="utf-8")
    _migrate(root, "--report", out)
    third = _report(out)
    assert third["options"]["resumed_files"] == 4
    assert "Variable(" not in edited.read_text(encoding="utf-8").split("def g")[1]
    assert third["totals"]["fixed"] == first["totals"]["fixed"] - 2 + 1  # its earlier fixes are in the file now


@pytest.mark.slow  # several CLI runs (2-8 s)
def test_other_options_start_a_new_state(tmp_path, capsys):
    root, files = _tree(tmp_path)
    out = tmp_path / "out"
    _migrate(root, "--report", out)
    assert _migrate(root, "--report", out, "--unsafe-fixes") == 1  # the Python 2 file is still there
    assert "moved to" in capsys.readouterr().err
    rep = _report(out)
    assert rep["totals"]["unsafe"] == 3 and rep["totals"]["left"] == 0
    assert "loss.item()" in (root / "plain" / "three.py").read_text(encoding="utf-8")
    assert len(list(out.glob("state.jsonl.*"))) == 1


def test_state_survives_a_cut_last_line(tmp_path):
    settings = {"codes": ["AD201"]}
    st = State(str(tmp_path), settings)
    st.append({"path": "/a.py", "in": "1", "out": "2", "status": "changed"})
    st.close()
    with open(tmp_path / "state.jsonl", "ab") as fh:
        fh.write(b'{"path": "/b.py", "in": "3", "ou')  # killed mid-write
    st = State(str(tmp_path), settings)
    assert st.is_done("/a.py", "2") and not st.is_done("/b.py", "3")
    st.append({"path": "/b.py", "in": "3", "out": "3", "status": "unchanged"})
    st.close()
    again = State(str(tmp_path), settings)
    assert again.is_done("/b.py", "3") and [r["path"] for r in again.records()] == ["/a.py", "/b.py"]
    again.close()


def test_read_only_file_is_left_alone_and_reported(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # no chart: it is not what this test is about
    root, files = _tree(tmp_path)
    ro = root / "repo_a" / "two.py"
    ro.chmod(0o444)
    out = tmp_path / "out"
    assert _migrate(root, "--report", out) == 2
    assert ro.read_text(encoding="utf-8") == files[ro]
    rep = _report(out)
    entry = next(f for f in rep["files"] if f["path"].endswith("two.py"))
    assert entry["status"] == "failed" and "read-only" in entry["error"]


def test_bad_path_is_one_line(tmp_path, capsys):
    assert _migrate(tmp_path / "missing", "--report", tmp_path / "out") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("autodetach: error:") and "missing" in err[0]


def test_no_chart_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    svg, note = render_svg(summarize([{"path": "/a.py", "repo": "/", "status": "changed", "fixed": {"AD201": 1}}],
                                     {}))
    assert svg is None and "pip install 'autodetach[report]'" in note


def test_a_python2_file_no_rule_admits_is_unparseable():
    """A Python 2 helper with no torch in it: never parsed by the rules, so
    the report called it unchanged; it is a file 2to3 must convert first."""
    from autodetach.migrate.work import migrate_file

    settings = Settings(codes=[r.code for r in all_rules()])
    rec, new = migrate_file("util.py", b"def f(x):\n    print 'x', x\n", settings)
    assert new is None and rec["status"] == "failed" and rec["python2"], rec
    rec, new = migrate_file("ok.py", b"def f(x):\n    return x\n", settings)
    assert new is None and rec["status"] == "unchanged", rec
    # Syntax newer than this Python that libcst reads is not a parse failure.
    rec, new = migrate_file("new.py", b"type Vec[T] = list[T]\n\n\ndef f[T](x: T) -> T:\n    return x\n", settings)
    assert new is None and rec["status"] == "unchanged", rec


def test_python2_hint():
    assert python2_hint(PY2, "Missing parentheses in call to 'print'")
    assert python2_hint("try:\n    pass\nexcept IOError, e:\n    pass\n", "invalid syntax")
    assert not python2_hint("def f(:\n    pass\n", "invalid syntax")


@pytest.mark.slow  # a process pool (2-5 s)
def test_run_bytes_streams_the_same_results_as_one_process():
    settings = Settings(codes=tuple(r.code for r in all_rules()), fix=True)
    items = [(i, f"m{i}.py", TINY.format(k=i).encode()) for i in range(8)]
    one = {tag: res.new_source for tag, res in run_bytes(iter(items), settings, jobs=1)}
    two = {tag: res.new_source for tag, res in run_bytes(iter(items), settings, jobs=2, window=3)}
    assert one == two and all(v is not None for v in one.values())
    assert one[0] == process_file("m0.py", items[0][2], settings).new_source


def _cli(*args, env_extra=None, **kw):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), **(env_extra or {}))
    return subprocess.Popen([sys.executable, "-m", "autodetach", "migrate", "--no-progress", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, **kw)


def _records(out):
    lines = (out / "state.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    return [json.loads(x) for x in lines if x.strip()]


@pytest.mark.slow
def test_sigkill_then_resume_fixes_nothing_twice(tmp_path):
    n = 200
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    make_tree(str(clean), n, repos=8, template=TINY)
    shutil.copytree(clean, killed)
    proc = _cli(clean, "--report", tmp_path / "out_clean", "-j", "2")
    proc.communicate(timeout=600)
    assert proc.returncode == 1

    out = tmp_path / "out_killed"
    proc = _cli(killed, "--report", out, "-j", "2")
    deadline = time.time() + 300
    while time.time() < deadline:
        state = out / "state.jsonl"
        if state.exists() and state.read_bytes().count(b"\n") > n // 3:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    done = len(_records(out))
    assert 0 < done < n, "the kill should land mid-way"
    proc = _cli(killed, "--report", out, "-j", "2")
    stdout, _ = proc.communicate(timeout=600)
    assert proc.returncode == 1
    assert b"Resumed:" in stdout

    for path in sorted(clean.rglob("*.py")):
        assert (killed / path.relative_to(clean)).read_bytes() == path.read_bytes(), path
    # Every fix started from the original bytes: none was applied on top of a fixed file.
    ins = {}
    for rec in _records(out):
        if rec["status"] == "changed":
            ins.setdefault(rec["path"], set()).add(rec["in"])
    assert all(len(v) == 1 for v in ins.values()) and len(ins) == n - n // 50
    a, b = _report(tmp_path / "out_clean"), _report(out)
    assert a["totals"] == b["totals"] and a["rules"] == b["rules"]
    assert [x["repository"].split("/")[-1] for x in a["repositories"]] == \
        [x["repository"].split("/")[-1] for x in b["repositories"]]
    assert b["totals"]["files"] == n and b["totals"]["changed"] == n - n // 50


@pytest.mark.slow
def test_sigterm_waits_for_a_writer_threads_rename(tmp_path):
    """A writer thread holds a named temporary file when SIGTERM arrives:
    the run ends by the signal after the rename, leaving the fixed file and
    no temporary file (a signal mask would defer it for one thread only)."""
    root = tmp_path / "repo"
    root.mkdir()
    body = TINY.format(k=0)
    (root / "m.py").write_text(body, encoding="utf-8")
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    proc = _cli(root, "--report", tmp_path / "out", "-j", "1",
                env_extra={"AUTODETACH_TEST_IN_RENAME": str(fifo)})
    try:
        deadline = time.time() + 120
        while True:  # the writer thread waits inside its rename window
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:
                assert time.time() < deadline and proc.poll() is None, "the run never reached its rename"
                time.sleep(0.02)
        assert [n for n in os.listdir(root) if n.endswith(".tmp")], "a named temporary file is expected here"
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)  # the handler now waits for the rename
        os.close(fd)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGTERM
    assert sorted(os.listdir(root)) == ["m.py"]
    assert (root / "m.py").read_text(encoding="utf-8") != body  # the fix was written whole


def _run_module(cwd, module):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0", CUDA_VISIBLE_DEVICES="",
               PYTHONWARNINGS="ignore")
    return subprocess.run([sys.executable, "-m", module], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.slow
def test_migrated_package_runs_like_the_hand_port(tmp_path):
    shutil.copytree(os.path.join(CORPUS, "migration", "sensor_lstm_03"), tmp_path / "sensor_lstm_03")
    before = _run_module(tmp_path, "sensor_lstm_03.train")
    assert before.returncode != 0 and "iteration over a 0-d tensor" in before.stderr, before.stderr[-2000:]

    out = tmp_path / "report"
    proc = _cli(tmp_path / "sensor_lstm_03", "--report", out, "--unsafe-fixes", "-j", "1", cwd=tmp_path)
    stdout, stderr = proc.communicate(timeout=300)
    # Left: AD213 on load_checkpoint's torch.load, a checkpoint dict read entry
    # by entry (reported without a fix; the run never loads one).
    assert proc.returncode == 1, stdout + stderr
    rep = _report(out)
    assert rep["totals"]["failed"] == 0 and rep["totals"]["unsafe"] == 2
    assert rep["totals"]["left"] == 1 and [r["code"] for r in rep["rules"] if r["left"]] == ["AD213"], rep["rules"]
    after = _run_module(tmp_path, "sensor_lstm_03.train")
    assert after.returncode == 0, after.stderr[-2000:]
    port = _run_module(os.path.join(CORPUS, "migration"), "sensor_lstm_port.train")
    assert port.returncode == 0, port.stderr[-2000:]
    assert "next reading" in port.stdout and after.stdout == port.stdout


@pytest.mark.slow
def test_verify_puts_verdicts_in_the_report(tmp_path):
    shutil.copyfile(os.path.join(CORPUS, "AD201", "new_leaf.py"), tmp_path / "new_leaf.py")
    out = tmp_path / "out"
    assert _migrate(tmp_path / "new_leaf.py", "--report", out, "--verify") == 0
    rep = _report(out)
    rows = rep["files"][0]["verification"]
    assert rows and all(r["verdict"] == "equivalent" for r in rows), rows
    assert rep["verification"] == {"equivalent": len(rows)}
    assert "Verification verdicts" in (out / "report.md").read_text(encoding="utf-8")
    with open(os.path.join(CORPUS, "AD201", "new_leaf.py"), encoding="utf-8") as fh:
        fixed = fix_code(fh.read(), select=[r.code for r in all_rules()])[0]
    assert (tmp_path / "new_leaf.py").read_text(encoding="utf-8") == fixed


@pytest.mark.slow  # a local dask cluster (10-30 s)
def test_migrate_with_a_dask_cluster_is_byte_identical_to_the_local_pool(tmp_path):
    pytest.importorskip("distributed")
    outs = {}
    for name in ("local", "dask"):
        make_tree(str(tmp_path / name / "legacy"), 40, repos=2, template=TINY)
        proc = subprocess.Popen([sys.executable, "-m", "autodetach", "migrate", "--no-progress", "-j", "2",
                                 "--executor", name, "legacy", "--report", "out"], cwd=tmp_path / name,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=dict(os.environ, PYTHONPATH=ROOT))
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 1 and err == b"", err  # findings left (Python 2 files), nothing else
        tree = tmp_path / name / "legacy"
        outs[name] = ({str(p.relative_to(tree)): p.read_bytes() for p in tree.rglob("*.py")},
                      (tmp_path / name / "out" / "report.md").read_bytes())
    assert outs["dask"] == outs["local"]
    assert outs["local"][0]["repo000/pkg/mod00000.py"] != TINY.format(k=0, h=8).encode()  # fixed


# One writer process: a state of 300 changed files under /TAG, then the
# report written ROUNDS times into OUT (no chart: matplotlib is slow to start).
_REPORT_WRITER = """
import sys
sys.modules["matplotlib"] = None
from autodetach.migrate.report import write_all
from autodetach.migrate.state import State
state_dir, out, tag, rounds = sys.argv[1:5]
st = State(state_dir, {"codes": ["AD201"]})
for i in range(300):
    st.append({"path": f"/{tag}/f{i:05}.py", "repo": f"/{tag}", "in": "1", "out": "2", "status": "changed",
               "fixed": {"AD201": 1}})
st.close()
for _ in range(int(rounds)):
    write_all(out, st, None, {"writer": tag})
"""


@pytest.mark.slow  # two processes, 3-10 s
def test_two_runs_writing_reports_into_one_dir_do_not_collide(tmp_path):
    # A fixed temporary name (report.json.tmp) made two runs write into one
    # file and the second rename fail; each write now has its own name.
    out = tmp_path / "out"
    out.mkdir()
    procs = []
    for tag in ("a", "b"):
        (tmp_path / tag).mkdir()
        procs.append(subprocess.Popen([sys.executable, "-c", _REPORT_WRITER, str(tmp_path / tag), str(out), tag, "8"],
                                      stderr=subprocess.PIPE))
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()[-2000:]
    rep = _report(out)  # whole JSON from one writer, never a mix
    tag = rep["options"]["writer"]
    assert tag in ("a", "b") and rep["totals"]["changed"] == 300
    assert len(rep["files"]) == 300 and all(f["repository"] == f"/{tag}" for f in rep["files"])
    assert (out / "report.html").read_text(encoding="utf-8").rstrip().endswith("</html>")
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "report.json", "report.md"]  # no temporaries
    assert (out / "report.md").stat().st_mode & 0o777 == 0o666 & ~_umask()  # a report, not a private file


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_migrate_file_fixes_a_notebook_cell_by_cell(tmp_path):
    """A notebook is migrated as `--fix` migrates it (its code cells), not read
    as Python: its JSON parses as a dict literal, and was reported unchanged."""
    nbformat = pytest.importorskip("nbformat")
    from autodetach.migrate.work import migrate_file
    from autodetach.notebook import process

    from nbformat.v4 import new_code_cell, new_notebook
    from autodetach.engine import Options

    nb = new_notebook()
    nb.cells = [new_code_cell("%matplotlib inline\nimport torch\nfrom torch.autograd import Variable"),
                new_code_cell("x = Variable(torch.ones(2), volatile=True)\ny = x * 2\nprint(y.sum().data[0])"),
                new_code_cell("w = torch.ones(2, requires_grad=True)\nv = Variable(w.data)\nprint(v)")]
    path = tmp_path / "legacy.ipynb"
    nbformat.write(nb, str(path))
    data = path.read_bytes()
    settings = Settings(codes=tuple(r.code for r in all_rules()))
    rec, new = migrate_file(str(path), data, settings)
    want = process(data, str(path), list(all_rules()), Options(fix=True))
    assert rec["status"] == "changed" and new == want.new_source
    assert rec["fixed"].get("AD201") == 1 and sum(rec["fixed"].values()) == want.fixed
    assert [x[1] for x in rec["left"]] == [f"cell {f.cell}:{f.line}" for f in want.findings if not f.fixed]
    cells = [c.source for c in nbformat.reads(new.decode("utf-8"), as_version=4).cells]
    assert cells[0].startswith("%matplotlib inline") and cells[2].endswith("v = w.detach()\nprint(v)")

    # the report's first line counts it as a notebook
    rec.update(repo=str(tmp_path), out=rec.get("in"))
    assert headline(summarize([rec], {}))[0].startswith("1 file (1 notebook) in 1 repository: 1 changed")
