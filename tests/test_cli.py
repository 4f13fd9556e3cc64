"""The command-line contract, through the real CLI (in-process via
`autodetach.cli.main`, or a subprocess of `python -m autodetach`).

AD201 (`Variable(x.data)`) is the example rule throughout; every run selects
it explicitly so that rules added later do not change these results."""
import os
import re
import shutil
import subprocess
import sys

import libcst as cst
import pytest

from autodetach import __version__, registry
from autodetach.findings import UNSAFE
from autodetach.rule import Rule

from .cli_helper import Result, invoke

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# One AD201 finding on line 2; its safe fix is FIXED.
BAD = "from torch.autograd import Variable\nh = Variable(h.data)\n"
FIXED = "from torch.autograd import Variable\nh = h.detach()\n"
CLEAN = "import torch\nx = torch.zeros(2).detach()\n"


def run_cli(args, cwd=None, select="AD201", jobs=True) -> Result:
    """Run the CLI in this process, as a user would, and capture everything."""
    args = [str(a) for a in args]
    if select and not any(a.startswith(("--select", "--explain", "--list-rules", "--version")) for a in args):
        args = ["--select", select] + args
    if jobs and not any(a.startswith(("-j", "--jobs")) for a in args):
        args = ["-j", "1"] + args
    return invoke(args, cwd)


def run_py(args, cwd, **kw) -> subprocess.CompletedProcess:
    """`python -m autodetach` in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "autodetach", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, timeout=120, **kw)


def write(path, text, mode="w", **kw):
    os.makedirs(os.path.dirname(str(path)) or ".", exist_ok=True)
    with open(path, mode, **kw) as fh:
        fh.write(text)
    return str(path)


def read(path) -> str:
    with open(path, encoding="utf-8", newline="") as fh:
        return fh.read()


def assert_one_line_error(res, *fragments):
    assert res.code == 2, (res.code, res.out, res.err)
    lines = [ln for ln in res.err.splitlines() if ln.strip()]
    assert len(lines) == 1, res.err
    assert lines[0].startswith("autodetach: error: "), res.err
    assert "Traceback" not in res.err + res.out
    for frag in fragments:
        assert frag in lines[0], lines[0]


# --- exit codes --------------------------------------------------------------

def test_exit_0_when_clean(tmp_path):
    write(tmp_path / "ok.py", CLEAN)
    res = run_cli(["ok.py"], cwd=tmp_path)
    assert res.code == 0, res
    assert "All checks passed!" in res.out


def test_exit_1_with_findings_and_report_line(tmp_path):
    write(tmp_path / "bad.py", BAD)
    res = run_cli(["--output-format", "concise", "bad.py"], cwd=tmp_path)
    assert res.code == 1
    assert res.lines[0].startswith("bad.py:2:5: AD201 [*] `Variable(h.data)`")
    assert "Found 1 finding in 1 file." in res.out
    assert "[*] 1 fixable with `--fix`." in res.out


def test_default_path_is_cwd(tmp_path):
    write(tmp_path / "pkg" / "bad.py", BAD)
    res = run_cli(["--output-format", "concise"], cwd=tmp_path)
    assert res.code == 1
    assert res.lines[0].startswith("pkg/bad.py:2:5: AD201")


def test_exit_zero(tmp_path):
    write(tmp_path / "bad.py", BAD)
    res = run_cli(["--exit-zero", "bad.py"], cwd=tmp_path)
    assert res.code == 0
    assert "AD201" in res.out


def test_fix_exits_0_when_everything_was_fixed(tmp_path):
    p = write(tmp_path / "bad.py", BAD)
    res = run_cli(["--fix", "bad.py"], cwd=tmp_path)
    assert res.code == 0, res
    assert read(p) == FIXED
    assert "Fixed 1 finding." in res.out
    # and a second run finds nothing
    again = run_cli(["bad.py"], cwd=tmp_path)
    assert again.code == 0 and "All checks passed!" in again.out


def test_fix_counts_across_files_and_multiline(tmp_path):
    write(tmp_path / "a.py", BAD + "g = Variable(\n    h.data\n)\n")
    write(tmp_path / "b.py", BAD)
    res = run_cli(["--fix", "."], cwd=tmp_path)
    assert res.code == 0, res
    assert "Fixed 3 findings." in res.out
    assert read(tmp_path / "a.py") == FIXED + "g = h.detach()\n"


def test_fix_with_remaining_unfixable_exits_1(tmp_path):
    # `requires_grad=flag` is left alone by AD201's fix but (no finding), so
    # use a suppressed-elsewhere variant: a file with one fixable finding
    # and one AD000 file that can never be fixed.
    write(tmp_path / "a.py", BAD)
    write(tmp_path / "py2.py", "from torch.autograd import Variable\nprint 'x'\n")
    res = run_cli(["--fix", "--output-format", "concise", "."], cwd=tmp_path)
    assert res.code == 1
    assert "Fixed 1 finding." in res.out
    assert "1 finding remains in 1 file." in res.out
    assert any(ln.startswith("py2.py:2:") and "AD000" in ln for ln in res.lines), res.out


# --- a rule that crashes -------------------------------------------------------

class Boom(Rule):
    """A test-only rule that raises on a call to `explode_here`."""

    code = "AD999"
    name = "test-only-boom"
    summary = "raises on purpose"
    tokens = ("explode_here",)

    def visit_Call(self, node):
        if isinstance(node.func, cst.Name) and node.func.value == "explode_here":
            raise ZeroDivisionError("deliberate crash for the test")


class Noted(Rule):
    """A test-only rule: reports `note_here(a)` with a related note on `a`."""

    code = "AD998"
    name = "test-only-noted"
    summary = "reports with a related location"
    tokens = ("note_here",)

    def visit_Call(self, node):
        if isinstance(node.func, cst.Name) and node.func.value == "note_here" and node.args:
            self.report(node, "called note_here", related=[(node.args[0].value, "the argument is here")])


class Risky(Rule):
    """A test-only rule with an unsafe fix: `old_api(...)` -> `new_api(...)`."""

    code = "AD997"
    name = "test-only-risky"
    summary = "renames old_api with an unsafe fix"
    fix_safety = UNSAFE
    tokens = ("old_api",)

    def visit_Call(self, node):
        if isinstance(node.func, cst.Name) and node.func.value == "old_api":
            self.report(node, "old_api is gone; new_api may behave differently",
                        replacement=node.with_changes(func=cst.Name("new_api")),
                        fix_title="Rename to new_api")


@pytest.fixture
def boom_rule():
    registry.register(Boom)
    try:
        yield Boom
    finally:
        registry.unregister(Boom)


@pytest.fixture
def extra_rules():
    """Register the test-only rules (AD997 unsafe fix, AD998 related notes, AD999 crash)."""
    for r in (Boom, Noted, Risky):
        registry.register(r)
    try:
        yield
    finally:
        for r in (Boom, Noted, Risky):
            registry.unregister(r)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_crashing_rule_exits_2_and_the_run_goes_on(tmp_path, boom_rule, jobs):
    write(tmp_path / "crash.py", "explode_here()\n" + BAD)
    for i in range(4):  # enough files for the process pool
        write(tmp_path / f"f{i}.py", BAD)
    res = run_cli(["--select", "AD201,AD999", "-j", jobs, "--fix", "."], cwd=tmp_path)
    assert res.code == 2, res
    err = [ln for ln in res.err.splitlines() if ln.strip()]
    assert len(err) == 1, res.err
    assert err[0].startswith("autodetach: crash.py: internal error in rule AD999: ZeroDivisionError: "
                             "deliberate crash for the test"), err
    assert "Traceback" not in res.err
    # the other files were still fixed, the crashing one left untouched
    for i in range(4):
        assert read(tmp_path / f"f{i}.py") == FIXED
    assert read(tmp_path / "crash.py") == "explode_here()\n" + BAD
    assert "Fixed 4 findings." in res.out
    assert "1 error (see above)." in res.out


def test_crash_exits_2_even_with_exit_zero(tmp_path, boom_rule):
    write(tmp_path / "crash.py", "explode_here()\n")
    res = run_cli(["--select", "AD999", "--exit-zero", "crash.py"], cwd=tmp_path)
    assert res.code == 2


def test_crash_in_json_report(tmp_path, boom_rule):
    import json

    write(tmp_path / "crash.py", "explode_here()\n")
    write(tmp_path / "bad.py", BAD)
    res = run_cli(["--select", "AD201,AD999", "--output-format", "json", "."], cwd=tmp_path)
    assert res.code == 2
    doc = json.loads(res.out)
    assert doc["summary"]["errors"] == 1
    assert doc["errors"][0]["path"] == "crash.py"
    assert "AD999" in doc["errors"][0]["message"]
    assert doc["summary"]["findings"] == 1


# --- --diff -----------------------------------------------------------------

def _git_repo(tmp_path, files: dict):
    for name, data in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return tmp_path


@pytest.mark.parametrize("variant", ["plain", "no-newline-at-eof", "crlf", "latin-1", "bom"])
def test_diff_applies_with_git_apply_and_patch(tmp_path, variant):
    data = {
        "plain": BAD.encode(),
        "no-newline-at-eof": BAD.rstrip("\n").encode(),
        "crlf": BAD.replace("\n", "\r\n").encode(),
        "latin-1": ("# -*- coding: latin-1 -*-\n# café\n" + BAD).encode("latin-1"),
        "bom": b"\xef\xbb\xbf" + BAD.encode(),
    }[variant]
    expected = data.replace(b"Variable(h.data)", b"h.detach()")
    _git_repo(tmp_path, {"sub/mod.py": data, "other.py": CLEAN.encode()})
    before = (tmp_path / "sub" / "mod.py").stat()
    res = run_cli(["--diff", "."], cwd=tmp_path)
    assert res.code == 1, res
    # writes nothing
    assert (tmp_path / "sub" / "mod.py").read_bytes() == data
    assert (tmp_path / "sub" / "mod.py").stat().st_mtime_ns == before.st_mtime_ns
    assert res.out.startswith("--- a/sub/mod.py\n+++ b/sub/mod.py\n@@ ")
    if variant == "no-newline-at-eof":
        assert res.out.endswith("\n\\ No newline at end of file\n")
    # the summary goes to stderr, stdout is the patch alone
    assert "Would fix 1 finding." in res.err
    patch_bytes = res.out.encode("utf-8", "surrogateescape")
    (tmp_path / "fix.patch").write_bytes(patch_bytes)

    if shutil.which("git"):
        chk = subprocess.run(["git", "apply", "--check", "fix.patch"], cwd=tmp_path, capture_output=True)
        assert chk.returncode == 0, chk.stderr
        app = subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, capture_output=True)
        assert app.returncode == 0, app.stderr
        assert (tmp_path / "sub" / "mod.py").read_bytes() == expected
        (tmp_path / "sub" / "mod.py").write_bytes(data)
    if shutil.which("patch"):
        dry = subprocess.run(["patch", "-p1", "--dry-run", "-i", "fix.patch"], cwd=tmp_path, capture_output=True)
        assert dry.returncode == 0, dry.stdout + dry.stderr
        app = subprocess.run(["patch", "-p1", "-i", "fix.patch"], cwd=tmp_path, capture_output=True)
        assert app.returncode == 0, app.stdout + app.stderr
        assert (tmp_path / "sub" / "mod.py").read_bytes() == expected
    if not shutil.which("git") and not shutil.which("patch"):
        pytest.skip("neither git nor patch is installed: applying the diff is not checked")


def test_diff_of_a_file_outside_the_working_directory_applies_from_root(tmp_path):
    # `autodetach --diff /abs/path/mod.py` from elsewhere printed `--- a//abs/path/mod.py`: git apply said
    # "invalid path". The name is the one `git diff --no-index` writes: the absolute path without its root.
    proj, here = tmp_path / "proj", tmp_path / "here"
    here.mkdir()
    _git_repo(proj, {"mod.py": BAD.encode()})
    target = str(proj / "mod.py")
    res = run_cli(["--diff", target], cwd=here)
    assert res.code == 1, res
    name = target.lstrip("/")
    assert res.out.startswith(f"--- a/{name}\n+++ b/{name}\n@@ "), res.out
    (tmp_path / "fix.patch").write_text(res.out)
    if shutil.which("git"):
        chk = subprocess.run(["git", "apply", "--check", str(tmp_path / "fix.patch")], cwd="/", capture_output=True)
        assert chk.returncode == 0, chk.stderr
    if shutil.which("patch"):
        dry = subprocess.run(["patch", "-p1", "--dry-run", "-i", str(tmp_path / "fix.patch")], cwd="/",
                             capture_output=True)
        assert dry.returncode == 0, dry.stdout + dry.stderr


def test_diff_exit_0_when_nothing_to_fix(tmp_path):
    write(tmp_path / "ok.py", CLEAN)
    res = run_cli(["--diff", "ok.py"], cwd=tmp_path)
    assert res.code == 0
    assert res.out == ""


def test_diff_with_fix_writes_nothing(tmp_path):
    p = write(tmp_path / "bad.py", BAD)
    res = run_cli(["--diff", "--fix", "bad.py"], cwd=tmp_path)
    assert res.code == 1
    assert read(p) == BAD
    assert "+h = h.detach()" in res.out


def test_diff_with_machine_format_needs_output_file(tmp_path):
    write(tmp_path / "bad.py", BAD)
    res = run_cli(["--diff", "--output-format", "json", "bad.py"], cwd=tmp_path)
    assert_one_line_error(res, "-o FILE")
    res = run_cli(["--diff", "--output-format", "json", "-o", "r.json", "bad.py"], cwd=tmp_path)
    assert res.code == 1
    assert res.out.startswith("--- a/bad.py")
    import json

    assert json.loads(read(tmp_path / "r.json"))["summary"]["findings"] == 0  # all would be fixed


# --- selection ---------------------------------------------------------------

@pytest.mark.parametrize("sel", ["AD201", "AD2", "AD", "ALL", "ad201", "AD201,AD2"])
def test_select_codes_prefixes_all(tmp_path, sel):
    write(tmp_path / "bad.py", BAD)
    res = run_cli(["--select", sel, "--output-format", "concise", "bad.py"], cwd=tmp_path, select=None)
    assert res.code == 1
    assert any("AD201" in ln for ln in res.lines)


@pytest.mark.parametrize("sel,ign", [("AD201", "AD201"), ("AD2", "AD2"), ("AD2", "AD201"), ("ALL", "AD2"),
                                     ("ALL", "ALL")])
def test_ignore(tmp_path, sel, ign):
    write(tmp_path / "bad.py", BAD)
    res = run_cli(["--ignore", ign, "--output-format", "concise", "bad.py"], cwd=tmp_path, select=sel)
    assert res.code == 0, res
    assert "AD201" not in res.out


def test_specific_select_beats_prefix_ignore(tmp_path):
    write(tmp_path / "bad.py", BAD)
    res = run_cli(["--select", "AD201", "--ignore", "AD2", "bad.py"], cwd=tmp_path, select=None)
    assert res.code == 1


def test_extend_select(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.autodetach]\nselect = ["AD9"]\n')
    write(tmp_path / "bad.py", BAD)
    # AD9 matches no rule: the configured selector is an error (one line)
    res = run_cli(["bad.py"], cwd=tmp_path, select=None)
    assert_one_line_error(res, "pyproject.toml", "unknown rule selector 'AD9'")
    write(tmp_path / "pyproject.toml", '[tool.autodetach]\nignore = ["AD201"]\n')
    assert run_cli(["bad.py"], cwd=tmp_path, select=None).code == 0
    res = run_cli(["--extend-select", "AD201", "bad.py"], cwd=tmp_path, select=None)
    assert res.code == 0  # config ignore (as specific) still wins over extend-select of same code
    res = run_cli(["--select", "AD201", "bad.py"], cwd=tmp_path, select=None)
    assert res.code == 1  # a command-line --select replaces the configured selection


@pytest.mark.parametrize("opt,value", [("--select", "XYZ"), ("--ignore", "AD9"), ("--extend-select", "AD8")])
def test_unknown_selector_is_one_line_error(tmp_path, opt, value):
    write(tmp_path / "bad.py", BAD)
    res = run_cli([opt, value, "bad.py"], cwd=tmp_path, select=None)
    assert_one_line_error(res, f"unknown rule selector '{value}'")


# --- information -------------------------------------------------------------

def test_explain():
    res = run_cli(["--explain", "AD201"])
    assert res.code == 0
    assert res.out.startswith("# AD201: variable-data-rewrap")
    for section in ("## What it does", "## Why it matters", "## Example", "## Fix", "## Fix safety"):
        assert section in res.out
    assert run_cli(["--explain", "ad201"]).out == res.out


def test_explain_ad000():
    res = run_cli(["--explain", "AD000"])
    assert res.code == 0 and "syntax-error" in res.out


def test_explain_unknown_code():
    assert_one_line_error(run_cli(["--explain", "AD777"]), "unknown rule code 'AD777'")


def test_list_rules():
    res = run_cli(["--list-rules"])
    assert res.code == 0
    row = next(ln for ln in res.lines if ln.startswith("AD201"))
    assert "variable-data-rewrap" in row and "safe" in row
    codes = [ln.split()[0] for ln in res.lines]
    assert codes == sorted(codes)


def test_version():
    res = run_cli(["--version"])
    assert res.code == 0
    assert res.out.strip() == f"autodetach, version {__version__}"


def test_help_lists_the_options():
    res = run_cli(["--help"])
    assert res.code == 0
    for opt in ("--fix", "--unsafe-fixes", "--diff", "--select", "--ignore", "--extend-select",
                "--output-format", "--output-file", "--jobs", "--exit-zero", "--statistics", "--explain",
                "--list-rules", "--version", "--config"):
        assert opt in res.out, opt


def test_statistics(tmp_path):
    write(tmp_path / "a.py", BAD + "k = Variable(h.data)\n")
    write(tmp_path / "b.py", BAD)
    res = run_cli(["--statistics", "."], cwd=tmp_path)
    assert res.code == 1
    assert re.match(r"^\s+3\tAD201\t\[\*\]\tvariable-data-rewrap$", res.lines[0]), res.out
    assert "a.py:" not in res.out  # counts instead of the list
    assert "Found 3 findings in 2 files." in res.out


def test_quiet_has_no_summary(tmp_path):
    write(tmp_path / "bad.py", BAD)
    res = run_cli(["-q", "--output-format", "concise", "bad.py"], cwd=tmp_path)
    assert res.code == 1
    assert res.lines == [ln for ln in res.lines if ln.startswith("bad.py:")]


# --- paths and bad input ---------------------------------------------------------

def test_nonexistent_path(tmp_path):
    assert_one_line_error(run_cli(["missing.py"], cwd=tmp_path), "missing.py: no such file or directory")


def test_broken_symlink_argument(tmp_path):
    os.symlink(tmp_path / "nowhere.py", tmp_path / "link.py")
    assert_one_line_error(run_cli(["link.py"], cwd=tmp_path), "link.py: broken symbolic link")


def test_unknown_option_is_one_line(tmp_path):
    assert_one_line_error(run_cli(["--no-such-option"], cwd=tmp_path), "--no-such-option")


def test_bad_output_format_is_one_line(tmp_path):
    assert_one_line_error(run_cli(["--output-format", "xml"], cwd=tmp_path), "xml")


def test_output_file_in_missing_directory(tmp_path):
    write(tmp_path / "bad.py", BAD)
    res = run_cli(["-o", "no/such/dir/r.txt", "bad.py"], cwd=tmp_path)
    assert_one_line_error(res, "cannot write the report")


def test_fuzz_no_tracebacks(tmp_path):
    """Empty files, binary garbage, a directory named x.py, a broken
    symlink, deep nesting: one-line reports, never a traceback."""
    write(tmp_path / "empty.py", "")
    write(tmp_path / "garbage.py", bytes(range(256)) * 4, mode="wb")
    write(tmp_path / "nul.py", b"from torch.autograd import Variable\x00\nh = 1\n", mode="wb")
    write(tmp_path / "badcookie.py", "# -*- coding: no-such-codec -*-\nVariable\n")
    (tmp_path / "x.py").mkdir()
    write(tmp_path / "x.py" / "inner.py", BAD)
    os.symlink(tmp_path / "gone.py", tmp_path / "dangling.py")
    write(tmp_path / "deep.py", "from torch.autograd import Variable\nx = " + "(" * 400 + "1" + ")" * 400 + "\n")
    write(tmp_path / "unterminated.py", "from torch.autograd import Variable\ns = '''\n")
    write(tmp_path / "tabs.py", "from torch.autograd import Variable\nif 1:\n\tx = 1\n        y = 2\n")
    proc = run_py(["--select", "AD201", "--output-format", "concise", "."], cwd=tmp_path)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert "Traceback" not in out + err, err
    assert proc.returncode in (1, 2), (proc.returncode, out, err)
    report = [ln for ln in out.splitlines() if re.match(r"^\S+:\d+:\d+: AD\d{3}", ln)]
    codes = {ln.split(":")[0]: ln.split()[1] for ln in report}
    assert codes.get("x.py/inner.py") == "AD201"
    for name in ("garbage.py", "nul.py", "badcookie.py", "unterminated.py", "tabs.py"):
        assert codes.get(name) == "AD000", (name, out)
    assert "empty.py" not in codes
    for ln in err.splitlines():
        assert ln.startswith("autodetach: "), ln


def test_python_m_autodetach_end_to_end(tmp_path):
    write(tmp_path / "bad.py", BAD)
    proc = run_py(["--select", "AD201", "--fix", "bad.py"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert read(tmp_path / "bad.py") == FIXED
    assert b"Fixed 1 finding." in proc.stdout


def test_console_script_version():
    exe = shutil.which("autodetach")
    if exe is None:
        pytest.skip("the autodetach console script is not installed")
    proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and __version__ in proc.stdout


def test_broken_pipe_is_quiet(tmp_path):
    for i in range(30):
        write(tmp_path / f"f{i:02d}.py", BAD * 20)
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.run(f"{sys.executable} -m autodetach --select AD201 -j 1 . | head -n 1",
                          shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.stdout.startswith("f00.py:2:5: AD201")
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr


# --- progress ---------------------------------------------------------------

def test_progress_never_pollutes_stdout_json(tmp_path):
    import json

    for i in range(25):
        write(tmp_path / f"f{i}.py", BAD)
    proc = run_py(["--select", "AD201", "--progress", "--output-format", "json", "."], cwd=tmp_path)
    doc = json.loads(proc.stdout)
    assert doc["summary"]["files"] == 25
    assert proc.returncode == 1


def test_progress_shown_on_a_tty_only(tmp_path):
    """Under a pseudo-terminal the bar is drawn on stderr; through a pipe
    (no TTY, no --progress) stderr stays empty."""
    pty = pytest.importorskip("pty")
    for i in range(25):
        write(tmp_path / f"f{i}.py", CLEAN)
    piped = run_py(["--select", "AD201", "."], cwd=tmp_path)
    assert piped.stderr == b""
    # stderr is a pty; stdout a pipe
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=ROOT, COLUMNS="80", TERM="xterm")
    proc = subprocess.Popen([sys.executable, "-m", "autodetach", "--select", "AD201", "-j", "1", "."],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    out, _ = proc.communicate(timeout=120)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    err = b"".join(chunks)
    assert proc.returncode == 0
    assert b"All checks passed!" in out
    assert b"checking" in err, err[:500]
    assert b"checking" not in out


# --- unsafe fixes ---------------------------------------------------------------

RISKY = "x = old_api(1)\n"


def test_unsafe_fix_needs_the_flag(tmp_path, extra_rules):
    p = write(tmp_path / "r.py", RISKY)
    res = run_cli(["--select", "AD997", "--output-format", "concise", "r.py"], cwd=tmp_path, select=None)
    assert res.code == 1
    assert res.lines[0] == "r.py:1:5: AD997 [*] old_api is gone; new_api may behave differently"
    assert "[*] 1 fixable with `--unsafe-fixes`." in res.out
    res = run_cli(["--select", "AD997", "--fix", "r.py"], cwd=tmp_path, select=None)
    assert res.code == 1 and read(p) == RISKY
    assert "1 finding remains in 1 file." in res.out
    res = run_cli(["--select", "AD997", "--diff", "r.py"], cwd=tmp_path, select=None)
    assert res.code == 0 and res.out == ""
    res = run_cli(["--select", "AD997", "--diff", "--unsafe-fixes", "r.py"], cwd=tmp_path, select=None)
    assert res.code == 1 and "+x = new_api(1)" in res.out
    res = run_cli(["--select", "AD997", "--fix", "--unsafe-fixes", "r.py"], cwd=tmp_path, select=None)
    assert res.code == 0 and read(p) == "x = new_api(1)\n"
    assert "Fixed 1 finding." in res.out


def test_unsafe_fixes_from_config_and_no_unsafe_fixes(tmp_path, extra_rules):
    write(tmp_path / "pyproject.toml", "[tool.autodetach]\nunsafe-fixes = true\n")
    p = write(tmp_path / "r.py", RISKY)
    res = run_cli(["--select", "AD997", "--diff", "--no-unsafe-fixes", "r.py"], cwd=tmp_path, select=None)
    assert res.code == 0 and res.out == ""
    res = run_cli(["--select", "AD997", "--fix", "r.py"], cwd=tmp_path, select=None)
    assert res.code == 0 and read(p) == "x = new_api(1)\n"


def test_pre_commit_hooks_file():
    yaml = pytest.importorskip("yaml")
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as fh:
        hooks = {h["id"]: h for h in yaml.safe_load(fh)}
    assert hooks["autodetach"]["entry"] == "autodetach --fix"
    assert hooks["autodetach-check"]["entry"] == "autodetach"
    for h in hooks.values():
        assert h["language"] == "python" and h["types"] == ["python"]
    # the entries are real invocations of this CLI
    assert run_cli(hooks["autodetach"]["entry"].split()[1:] + ["--help"]).code == 0
