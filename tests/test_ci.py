"""`autodetach ci` against real git: a scratch repository with a base commit
and a pull-request commit that adds a GAN step without detach and a legacy
`Variable(x.data)`. Nothing here runs torch programs (see test_ci_verify)."""
import json
import os
import subprocess

import pytest

from .cli_helper import invoke

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

LEGACY = """\
import torch
from torch.autograd import Variable


def old_a(x):
    return Variable(x.data)


def old_b(x):
    y = x * 2
    return y
"""

GAN = """\
import torch
from torch import nn, optim


def train(steps):
    G = nn.Linear(4, 2)
    D = nn.Linear(2, 1)
    bce = nn.BCEWithLogitsLoss()
    opt_g = optim.SGD(G.parameters(), lr=0.1)
    opt_d = optim.SGD(D.parameters(), lr=0.1)
    for _ in range(steps):
        fake = G(torch.randn(8, 4))
        opt_g.zero_grad()
        g_loss = bce(D(fake), torch.ones(8, 1))
        g_loss.backward()
        opt_g.step()
        opt_d.zero_grad()
        d_loss = bce(D(torch.randn(8, 2)), torch.ones(8, 1)) + bce(D(fake), torch.zeros(8, 1))
        d_loss.backward()
        opt_d.step()


if __name__ == "__main__":
    train(3)
"""
GAN_LINE = 18  # the D loss: `D(fake)` needs `fake.detach()`
OLD_LINE, NEW_LINE = 6, 10  # Variable(x.data) before the PR, and the one it adds
ODD = "ödd name.py"  # git quotes it in diffs


def git(cwd, *args):
    return subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def write(path, text):
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path)


def make_repo(tmp_path):
    """main: legacy.py (a finding on line 6), moved.py, gone.py (findings).
    pr: gan.py added, legacy.py gains a finding on line 10, moved.py renamed
    unchanged, gone.py deleted, ODD added; an untracked file with findings."""
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    git(r, "config", "user.email", "dev@example.com")
    git(r, "config", "user.name", "Dev")
    write(r / "legacy.py", LEGACY)
    write(r / "moved.py", LEGACY)
    write(r / "gone.py", LEGACY)
    git(r, "add", ".")
    git(r, "commit", "-q", "-m", "base")
    git(r, "checkout", "-q", "-b", "pr")
    write(r / "legacy.py", LEGACY.replace("    y = x * 2\n", "    y = Variable(x.data) * 2\n"))
    write(r / "gan.py", GAN)
    write(r / ODD, "from torch.autograd import Variable\nh = Variable(h.data)\n")
    git(r, "mv", "moved.py", "renamed.py")
    git(r, "rm", "-q", "gone.py")
    git(r, "add", ".")
    git(r, "commit", "-q", "-m", "pr")
    write(r / "untracked.py", LEGACY)
    return r


def ci(cwd, *args, env=None):
    """`autodetach ci ARGS` in this process; (exit code, stdout, stderr)."""
    cache = [] if env and "XDG_CACHE_HOME" in env else ["--no-cache"]
    res = invoke(["ci", "-j", "1", *cache, *args], cwd=cwd, env=env)
    return res.code, res.out, res.err


def apply_suggestions(text, diagnostics):
    """Apply rdjson line-wise suggestions (start and end lines, end included)
    to `text`, bottom up, as a reviewer accepting each one would."""
    lines = text.split("\n")
    edits = sorted(((s["range"]["start"]["line"], s["range"]["end"]["line"], s["text"])
                    for d in diagnostics for s in d.get("suggestions", [])), reverse=True)
    for first, last, new in edits:
        lines[first - 1:last] = new.split("\n")
    return "\n".join(lines)


def found(out):
    return sorted((f["path"], f["line"], f["code"]) for f in json.loads(out)["findings"])


def test_only_changed_lines_of_changed_files(repo):
    code, out, err = ci(repo, "--changed-since", "main", "--output-format", "json")
    assert (code, err) == (1, "")
    got = found(out)
    assert ("legacy.py", NEW_LINE, "AD201") in got
    assert ("gan.py", GAN_LINE, "AD103") in got
    assert (ODD, 2, "AD201") in got
    # not: the finding that predates the PR, the unchanged rename, the deleted and the untracked file
    assert ("legacy.py", OLD_LINE, "AD201") not in got
    assert {p for p, _, _ in got} == {"legacy.py", "gan.py", ODD}


def test_whole_files_reports_every_finding_of_the_changed_files(repo):
    code, out, _ = ci(repo, "--changed-since", "main", "--whole-files", "--output-format", "json")
    got = found(out)
    assert code == 1
    assert ("legacy.py", OLD_LINE, "AD201") in got and ("renamed.py", OLD_LINE, "AD201") in got
    assert not any(p in ("gone.py", "untracked.py") for p, _, _ in got)


def test_paths_limit_the_changed_files_and_reports_are_relative_to_the_root(repo):
    (repo / "sub").mkdir()
    write(repo / "sub" / "x.py", "from torch.autograd import Variable\nh = Variable(h.data)\n")
    git(repo, "add", "sub")
    code, out, _ = ci(repo / "sub", "--changed-since", "main", "--output-format", "json", ".")
    assert code == 1 and found(out) == [("sub/x.py", 2, "AD201")]
    # -o and --patch are relative to where the command runs, the paths inside to the root
    ci(repo / "sub", "--changed-since", "main", "--output-format", "json", "-o", "r.json", "--patch", "p.diff", ".")
    assert found((repo / "sub" / "r.json").read_text()) == [("sub/x.py", 2, "AD201")]
    assert "+++ b/sub/x.py" in (repo / "sub" / "p.diff").read_text()


def test_rdjson_validates_against_the_schema_and_carries_the_fixes(repo):
    jsonschema = pytest.importorskip("jsonschema")
    with open(os.path.join(DATA, "rdjson.schema.json"), encoding="utf-8") as fh:
        schema = json.load(fh)
    code, out, _ = ci(repo, "--changed-since", "main", "--output-format", "rdjson")
    doc = json.loads(out)
    jsonschema.validate(doc, schema)
    assert code == 1
    by = {(d["location"]["path"], d["location"]["range"]["start"]["line"], d["code"]["value"]): d
          for d in doc["diagnostics"]}
    gan = by[("gan.py", GAN_LINE, "AD103")]
    start, end = gan["location"]["range"]["start"], gan["location"]["range"]["end"]
    line = GAN.splitlines()[GAN_LINE - 1]
    assert line.encode()[start["column"] - 1:end["column"] - 1] == b"fake"  # 1-based, end exclusive
    assert gan["suggestions"] == [{"range": {"start": {"line": GAN_LINE}, "end": {"line": GAN_LINE}},
                                   "text": line.replace("D(fake)", "D(fake.detach())")}]
    leg = by[("legacy.py", NEW_LINE, "AD201")]
    assert leg["suggestions"][0]["text"] == "    y = x.detach() * 2"
    # accepting every suggestion gives what the patch gives
    patch = os.path.join(str(repo), "..", "s.patch")
    ci(repo, "--changed-since", "main", "--patch", patch)
    for name in ("gan.py", "legacy.py"):
        mine = [d for d in doc["diagnostics"] if d["location"]["path"] == name]
        accepted = apply_suggestions((repo / name).read_text(), mine)
        subprocess.run(["git", "apply", "--include", name, patch], cwd=repo, check=True)
        assert (repo / name).read_text() == accepted
    assert ("legacy.py", OLD_LINE, "AD201") not in by


def test_rdjson_columns_count_utf8_bytes(repo):
    write(repo / "u.py", "from torch.autograd import Variable\nü = 'é'; h = Variable(h.data)\n")
    git(repo, "add", "u.py")
    _, out, _ = ci(repo, "--changed-since", "main", "--output-format", "rdjson", "u.py")
    (d,) = json.loads(out)["diagnostics"]
    text = "ü = 'é'; h = Variable(h.data)".encode()
    r = d["location"]["range"]
    assert text[r["start"]["column"] - 1:r["end"]["column"] - 1] == b"Variable(h.data)"


def test_patch_applies_with_git_apply_and_leaves_nothing_to_fix(repo, tmp_path):
    patch = tmp_path / "fix.patch"
    code, _, _ = ci(repo, "--changed-since", "main", "--patch", patch, "--output-format", "concise")
    assert code == 1
    text = patch.read_text(encoding="utf-8")
    assert "+        d_loss = " in text and "fake.detach()" in text
    assert "return Variable(x.data)" not in text  # the line the PR did not touch
    subprocess.run(["git", "apply", "--check", str(patch)], cwd=repo, check=True)
    subprocess.run(["git", "apply", str(patch)], cwd=repo, check=True)
    code, out, _ = ci(repo, "--changed-since", "main", "--output-format", "json")
    assert code == 0 and found(out) == []
    assert "return Variable(x.data)" in (repo / "legacy.py").read_text()


def test_commit_mode_commits_the_fixes_and_a_second_run_is_clean(repo):
    before = git(repo, "rev-parse", "HEAD").strip()
    code, out, err = ci(repo, "--changed-since", "main", "--commit")
    assert code == 0, out + err
    assert "Committed the fixes as" in out
    assert git(repo, "rev-parse", "HEAD~1").strip() == before
    msg = git(repo, "log", "-1", "--format=%B")
    assert msg.startswith("autodetach: fix ")
    assert f"gan.py:{GAN_LINE} AD103" in msg and f"legacy.py:{NEW_LINE} AD201" in msg
    assert "(not verified)" in msg
    changed = set(git(repo, "show", "--name-only", "--format=", "HEAD").split("\n")) - {""}
    assert changed == {"gan.py", "legacy.py", ODD}
    assert git(repo, "status", "--porcelain") == "?? untracked.py\n"  # nothing else touched
    code, out, _ = ci(repo, "--changed-since", "main", "--output-format", "json")
    assert code == 0 and found(out) == []
    shown = git(repo, "show", "HEAD:gan.py")
    assert "D(fake.detach())" in shown


def test_commit_never_commits_a_file_that_does_not_parse(repo, monkeypatch):
    from autodetach.ci import commit as commit_mod

    before = git(repo, "rev-parse", "HEAD").strip()
    # Stands in for a fixer bug: the files that start with `import torch` "do not parse".
    monkeypatch.setattr(commit_mod, "_parses", lambda data, path="": not data.startswith(b"import torch\n"))
    code, _, err = ci(repo, "--changed-since", "main", "--commit")
    assert code == 2
    assert "gan.py: not committed: the fixed file does not parse" in err
    # legacy.py starts the same way: neither is committed
    assert git(repo, "show", "--name-only", "--format=", "HEAD").splitlines() == [ODD]
    assert git(repo, "rev-parse", "HEAD~1").strip() == before
    assert "D(fake)," in (repo / "gan.py").read_text()  # not written either


def test_step_summary_lists_fixes_and_what_is_left(repo, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    write(repo / "nofix.py", "import torch\nx = torch.randn(3, requires_grad=True)\nx.detach()\n"
                             "loss = torch.nn.functional.softmax(x).sum()\n")
    git(repo, "add", "nofix.py")
    code, _, _ = ci(repo, "--changed-since", "main", "-q", env={"GITHUB_STEP_SUMMARY": str(summary)})
    text = summary.read_text()
    assert code == 1
    assert text.startswith("earlier step\n## autodetach")
    assert "### Fixes" in text and f"`gan.py:{GAN_LINE}` | AD103" in text and "not verified" in text
    assert "### Left for a human" in text and "`legacy.py" not in text.split("### Left")[1]


def test_outputs_sarif_github_gitlab(repo):
    code, out, _ = ci(repo, "--changed-since", "main", "--output-format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    assert code == 1
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == \
        {"gan.py", "legacy.py", "%C3%B6dd%20name.py"}
    _, out, _ = ci(repo, "--changed-since", "main", "--output-format", "github")
    assert f"::warning file=gan.py,line={GAN_LINE}," in out
    _, out, _ = ci(repo, "--changed-since", "main", "--output-format", "gitlab")
    items = json.loads(out)
    assert all(set(i) == {"description", "check_name", "fingerprint", "severity", "location"} for i in items)
    leg = [i for i in items if i["location"]["path"] == "legacy.py"]
    assert leg[0]["location"]["lines"]["begin"] == NEW_LINE and leg[0]["check_name"].startswith("AD201")
    assert len({i["fingerprint"] for i in items}) == len(items)


def test_main_command_gitlab_fingerprints_survive_moved_lines(tmp_path):
    write(tmp_path / "a.py", "from torch.autograd import Variable\nh = Variable(h.data)\n")

    def report():
        code, out, _ = ci_main(tmp_path, "--select", "AD201", "--output-format", "gitlab", "a.py")
        assert code == 1
        return json.loads(out)

    (first,) = report()
    assert first["location"] == {"path": "a.py", "lines": {"begin": 2, "end": 2}}
    assert first["severity"] == "major" and first["check_name"] == "AD201 variable-data-rewrap"
    write(tmp_path / "a.py", "from torch.autograd import Variable\n\n\nh = Variable(h.data)\n")
    (moved,) = report()
    assert moved["location"]["lines"]["begin"] == 4 and moved["fingerprint"] == first["fingerprint"]


def ci_main(cwd, *args):
    """The main command in this process; (exit code, stdout, stderr)."""
    res = invoke(["-j", "1", "--no-cache", *args], cwd=cwd)
    return res.code, res.out, res.err


def test_errors_are_one_line(repo, tmp_path):
    code, out, err = ci(repo, "--changed-since", "no-such-ref")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        "autodetach: error: --changed-since: 'no-such-ref' is not a commit in this repository "
        "(fetch it first; in GitHub Actions use fetch-depth: 0)"]
    plain = tmp_path / "plain"
    plain.mkdir()
    code, _, err = ci(plain, "--changed-since", "main")
    assert code == 2 and err == "autodetach: error: --changed-since needs a git repository\n"


def test_no_changes_is_clean(repo):
    code, out, _ = ci(repo, "--changed-since", "HEAD", "--output-format", "rdjson")
    assert code == 0 and json.loads(out)["diagnostics"] == []


def test_fix_off_the_changed_lines_is_not_offered(repo, tmp_path):
    """A file whose old finding sits next to the new one: only the new line
    is rewritten; the rewrite of the old one stays out of the patch."""
    patch = tmp_path / "p.diff"
    ci(repo, "--changed-since", "main", "--patch", patch, "legacy.py")
    text = patch.read_text()
    assert text.count("\n-") == 1 and "-    y = Variable(x.data) * 2\n+    y = x.detach() * 2\n" in text


@pytest.mark.slow
def test_verify_commits_only_fixes_verified_fixed_or_equivalent(repo, tmp_path):
    """gan.py runs (main guard): its fix is verified `fixed` and committed.
    legacy.py and ODD have no entry point: `unverifiable`, left for a human."""
    summary = tmp_path / "summary.md"
    code, out, err = ci(repo, "--changed-since", "main", "--verify", "--commit", "--timeout", "60",
                        env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert code == 1, out + err  # the unverified findings remain
    msg = git(repo, "log", "-1", "--format=%B")
    assert f"gan.py:{GAN_LINE} AD103 shared-graph-needs-detach: Use `fake.detach()` there (fixed)" in msg
    assert "legacy.py" not in msg
    assert git(repo, "show", "--name-only", "--format=", "HEAD").splitlines() == ["gan.py"]
    assert "Variable(x.data) * 2" in (repo / "legacy.py").read_text()
    left = summary.read_text().split("### Left for a human")[1]
    assert f"`legacy.py:{NEW_LINE}` | AD201" in left and "verification: unverifiable (no entry point" in left


def test_cache_serves_a_rerun_with_the_same_answer(repo, tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    patch1, patch2 = tmp_path / "1.diff", tmp_path / "2.diff"
    first = ci(repo, "--changed-since", "main", "--output-format", "rdjson", "--patch", patch1, env=env)
    entries = list((tmp_path / "xdg").rglob("ci/*/*.json"))
    assert len(entries) == 3  # gan.py, legacy.py, ODD
    args = ["ci", "-j", "2", "--changed-since", "main", "--output-format", "rdjson", "--patch", patch2]
    second = invoke(args, cwd=repo, env=env).out
    assert second == first[1] and patch2.read_bytes() == patch1.read_bytes()
    assert sorted(p.stat().st_mtime_ns for p in entries) == sorted(
        p.stat().st_mtime_ns for p in (tmp_path / "xdg").rglob("ci/*/*.json"))  # read, not rewritten


def test_commit_leaves_a_file_with_uncommitted_edits_alone(repo):
    before = git(repo, "rev-parse", "HEAD").strip()
    edited = (repo / "gan.py").read_text() + "# work in progress\n"
    write(repo / "gan.py", edited)
    code, _, err = ci(repo, "--changed-since", "main", "--commit")
    assert code == 2 and "gan.py: not committed: the file has uncommitted changes" in err
    assert (repo / "gan.py").read_text() == edited
    assert git(repo, "rev-parse", "HEAD~1").strip() == before
    assert "gan.py" not in git(repo, "show", "--name-only", "--format=", "HEAD")


def test_a_fix_keeps_the_import_it_needs_outside_the_changed_lines(tmp_path):
    """AD206's fix needs `import torch` at the top, a line the PR did not
    touch: with no other finding fixed there, the whole fix is offered."""
    r = tmp_path / "r"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    base = "from torch.autograd import Variable\n\n\ndef f(x):\n    return x\n"
    write(r / "m.py", base)
    git(r, "add", ".")
    git(r, "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-q", "-m", "base")
    write(r / "m.py", base.replace("    return x\n", "    if type(x) == Variable:\n        return x\n    return x\n"))
    patch = tmp_path / "p.diff"
    code, _, _ = ci(r, "--changed-since", "main", "--patch", patch)
    assert code == 1
    subprocess.run(["git", "apply", str(patch)], cwd=r, check=True)
    fixed = (r / "m.py").read_text()
    assert fixed.startswith("import torch\n") and "isinstance(x, torch.Tensor)" in fixed
    assert ci(r, "--changed-since", "main")[0] == 0


def test_old_findings_fixes_are_held_back_and_the_new_ones_keep_their_import(tmp_path):
    """The old finding (line 5) stays as it is; the new one's fix comes with
    the `import torch` it needs, and the old `Variable` import stays."""
    r = tmp_path / "r"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    base = "from torch.autograd import Variable\n\n\ndef f(x):\n    return type(x) == Variable\n"
    write(r / "m.py", base)
    git(r, "add", ".")
    git(r, "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-q", "-m", "base")
    write(r / "m.py", base + "\n\ndef g(y):\n    return type(y) == Variable\n")
    patch = tmp_path / "p.diff"
    code, out, _ = ci(r, "--changed-since", "main", "--patch", patch, "--output-format", "json")
    assert code == 1 and found(out) == [("m.py", 9, "AD206")]
    expected = ("import torch\nfrom torch.autograd import Variable\n\n\ndef f(x):\n"
                "    return type(x) == Variable\n\n\ndef g(y):\n    return isinstance(y, torch.Tensor)\n")
    # one suggestion carries the whole fix, the import included
    _, rd, _ = ci(r, "--changed-since", "main", "--output-format", "rdjson")
    (diag,) = json.loads(rd)["diagnostics"]
    assert len(diag["suggestions"]) == 1
    assert apply_suggestions((r / "m.py").read_text(), [diag]) == expected
    subprocess.run(["git", "apply", str(patch)], cwd=r, check=True)
    assert (r / "m.py").read_text() == expected
    assert ci(r, "--changed-since", "main")[0] == 0


def test_entangled_fix_is_left_for_a_human(tmp_path):
    """One statement holds an old finding and a new one of the same rule:
    the old one cannot be held back alone, so nothing is offered and the
    summary says why."""
    r = tmp_path / "r"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    base = "from torch.autograd import Variable\ny = (Variable(a.data) +\n     b)\n"
    write(r / "m.py", base)
    git(r, "add", ".")
    git(r, "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-q", "-m", "base")
    write(r / "m.py", base.replace("     b)", "     Variable(b.data))"))
    patch, summary = tmp_path / "p.diff", tmp_path / "s.md"
    code, out, _ = ci(r, "--changed-since", "main", "--patch", patch, "--output-format", "json",
                      env={"GITHUB_STEP_SUMMARY": str(summary), "XDG_CACHE_HOME": str(tmp_path / "x")})
    assert code == 1 and found(out) == [("m.py", 3, "AD201")]
    assert patch.read_text() == ""
    assert "its fix also rewrites lines outside this change" in summary.read_text()


def test_configuration_excludes_and_per_file_ignores_apply(repo):
    write(repo / "pyproject.toml", '[tool.autodetach]\nexclude = ["vendor"]\n'
                                   'per-file-ignores = { "tests/*" = ["AD2"] }\n')
    for d in ("vendor", "tests"):
        (repo / d).mkdir()
        write(repo / d / "x.py", "from torch.autograd import Variable\nh = Variable(h.data)\n")
    git(repo, "add", ".")
    code, out, _ = ci(repo, "--changed-since", "main", "--output-format", "json")
    assert code == 1
    assert not any(p.startswith(("vendor/", "tests/")) for p, _, _ in found(out))
    assert ("legacy.py", NEW_LINE, "AD201") in found(out)


def test_commit_never_writes_through_a_link_out_of_the_repository(repo, tmp_path):
    outside = tmp_path / "outside.py"
    write(outside, "from torch.autograd import Variable\nh = Variable(h.data)\n")
    os.symlink(outside, repo / "link.py")
    git(repo, "add", "link.py")
    code, out, _ = ci(repo, "--changed-since", "main", "--whole-files", "--output-format", "json")
    assert "link.py" not in {p for p, _, _ in found(out)}  # a link's change is not a change of Python code
    code, _, err = ci(repo, "--commit", "link.py")
    assert code == 2 and "link.py: not fixed: a symbolic link to a file outside the repository" in err
    assert outside.read_text() == "from torch.autograd import Variable\nh = Variable(h.data)\n"
