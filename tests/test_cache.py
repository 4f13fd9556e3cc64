"""The result cache: a re-run skips unchanged files and gives the same output,
exit code, diff and fixes as a run without the cache.

Runs go through the real CLI in this process with -j1, so a counting wrapper
around libcst.parse_module (which still calls the real parser) tells whether
a file was analysed or served from the cache."""

import pytest

from autodetach import cache as cache_mod

from .cli_helper import invoke

BAD = "from torch.autograd import Variable\nh = Variable(h.data)\n"
FIXED = "from torch.autograd import Variable\nh = h.detach()\n"
CLEAN = "from torch.autograd import Variable\nx = Variable\n"  # passes the pre-filter, no finding
CONFIG = '[tool.autodetach]\nselect = ["AD201"]\n'


@pytest.fixture
def parses(parses, monkeypatch):
    """Count real parses (conftest's counter), with the default cache place."""
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    return parses


def run(args, cwd):
    res = invoke(["-j", "1", "--no-progress", *args], cwd)
    return res.code, res.out, res.err


def project(tmp_path, files):
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


def entries(root):
    d = root / cache_mod.DIR_NAME
    return sorted(p for p in d.rglob("*.json")) if d.exists() else []


def test_warm_run_parses_nothing_and_matches(tmp_path, parses):
    root = project(tmp_path, {"a.py": BAD, "b.py": CLEAN, "sub/c.py": BAD})
    cold = run(["."], root)
    assert cold[0] == 1 and "AD201" in cold[1]
    assert len(parses) >= 3
    assert (root / cache_mod.DIR_NAME / ".gitignore").read_text() == "*\n"
    parses.clear()
    warm = run(["."], root)
    assert warm == cold
    assert parses == []
    assert warm == run(["--no-cache", "."], root)


def test_one_changed_file_is_reanalysed(tmp_path, parses):
    root = project(tmp_path, {"a.py": BAD, "b.py": CLEAN})
    run(["."], root)
    (root / "b.py").write_text(BAD)
    parses.clear()
    code, out, _ = run(["--output-format", "concise", "."], root)
    assert code == 1
    assert "b.py:2:5: AD201" in out and "a.py:2:5: AD201" in out
    assert len(parses) == 2  # only b.py: a report pass that also settles its fix


def test_diff_identical_with_and_without_cache(tmp_path, parses):
    root = project(tmp_path, {"a.py": BAD, "b.py": CLEAN})
    first = run(["--diff", "."], root)
    second = run(["--diff", "."], root)
    fresh = run(["--diff", "--no-cache", "."], root)
    assert first[0] == 1 and "+h = h.detach()" in first[1]
    assert first == second == fresh


def test_modes_do_not_share_results_with_findings(tmp_path, parses):
    root = project(tmp_path, {"a.py": BAD})
    report = run(["."], root)
    diff = run(["--diff", "."], root)  # report-mode entry must not answer --diff
    assert report[0] == 1 and "[*]" in report[1]
    assert "+h = h.detach()" in diff[1]


def test_fix_is_never_served_stale(tmp_path, parses):
    root = project(tmp_path, {"a.py": BAD, "b.py": CLEAN})
    run(["."], root)  # caches a.py's findings in report mode
    assert run(["--fix", "."], root)[0] == 0
    assert (root / "a.py").read_text() == FIXED
    # The fixed file has new content: reported clean, not from the old entry.
    assert run(["."], root)[0] == 0
    # Put the bug back: the old content's entries must not claim it is fixed.
    (root / "a.py").write_text(BAD)
    assert run(["--fix", "."], root)[0] == 0
    assert (root / "a.py").read_text() == FIXED


def test_clean_entry_skips_file_in_fix_mode(tmp_path, parses):
    root = project(tmp_path, {"b.py": CLEAN})
    run(["."], root)
    parses.clear()
    code, _, _ = run(["--fix", "."], root)
    assert code == 0 and parses == []
    assert (root / "b.py").read_text() == CLEAN


def test_corrupt_entries_are_ignored(tmp_path, parses):
    root = project(tmp_path, {"a.py": BAD, "b.py": CLEAN})
    cold = run(["--diff", "."], root)
    found = entries(root)
    assert found
    garbage = [b"", b"{not json", b'{"format": 1, "modes": {"x": 1}}', b'{"format": 1, "clean": {"findings": 3}}',
               b"[1, 2]"]
    for i, p in enumerate(found):
        p.write_bytes(garbage[i % len(garbage)])
    parses.clear()
    again = run(["--diff", "."], root)
    assert again == cold
    assert len(parses) >= 2  # both re-analysed


def test_settings_are_part_of_the_key(tmp_path, parses):
    root = project(tmp_path, {"a.py": BAD})
    assert run(["."], root)[0] == 1
    # Another selection: AD201 off, nothing to report.
    assert run(["--select", "AD206", "."], root)[0] == 0
    # per-file-ignores from the configuration.
    (root / "pyproject.toml").write_text(CONFIG + 'per-file-ignores = { "a.py" = ["AD201"] }\n')
    assert run(["."], root)[0] == 0
    (root / "pyproject.toml").write_text(CONFIG)
    assert run(["."], root)[0] == 1


def test_no_cache_writes_nothing(tmp_path, parses):
    root = project(tmp_path, {"a.py": BAD})
    run(["--no-cache", "."], root)
    assert not (root / cache_mod.DIR_NAME).exists()


def test_xdg_cache_home(tmp_path, parses, monkeypatch):
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    root = project(tmp_path / "proj", {"a.py": BAD})
    first = run(["."], root)
    assert not (root / cache_mod.DIR_NAME).exists()
    assert list((xdg / "autodetach").rglob("*.json"))
    parses.clear()
    assert run(["."], root) == first and parses == []


def test_tool_fingerprint_is_stable_and_covers_the_package():
    a = cache_mod.tool_fingerprint()
    assert a == cache_mod.tool_fingerprint() and len(a) == 64


def test_without_a_config_the_cache_goes_to_the_working_directory(tmp_path, parses):
    # A scan of a tree with no configuration (an installed package, say)
    # never writes into that tree.
    scanned = tmp_path / "site" / "pkg"
    scanned.mkdir(parents=True)
    (scanned / "a.py").write_text(BAD)
    work = tmp_path / "work"
    work.mkdir()
    first = run(["--select", "AD201", str(scanned)], work)
    assert first[0] == 1 and "AD201" in first[1]
    assert not (scanned / cache_mod.DIR_NAME).exists()
    assert entries(work)
    parses.clear()
    assert run(["--select", "AD201", str(scanned)], work) == first and parses == []
