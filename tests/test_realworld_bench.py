"""Plumbing of benchmarks/realworld.py: a synthetic git repository in tmp_path
stands in for a fetched mirror; no network, no fetched code."""
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "benchmarks", "realworld.py")
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import realworld  # noqa: E402

TRAIN = """\
import torch
from torch import nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total_loss = 0
for step in range(3):
    loss = model(torch.randn(2, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total_loss += loss
print(total_loss)
running = 0.0
for step in range(3):
    loss = model(torch.randn(2, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    running += loss.item()
print(running)
"""


def _git(cwd, *args):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture
def mirror(tmp_path):
    """A mirror root holding one repository, laid out as `fetch` leaves it."""
    work = tmp_path / "mirrors" / "someone+trainer" / "repo"
    (work / "pkg").mkdir(parents=True)
    _git(work, "init", "-q")
    (work / "pkg" / "train.py").write_text(TRAIN)
    (work / "README.md").write_text("not Python\n")
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "buggy")
    buggy = _git(work, "rev-parse", "HEAD")
    (work / "pkg" / "train.py").write_text(TRAIN.replace("total_loss += loss\n", "total_loss += loss.item()\n"))
    _git(work, "commit", "-qam", "fixed")
    fixed = _git(work, "rev-parse", "HEAD")
    return tmp_path / "mirrors", buggy, fixed


def _manifest(tmp_path, cases):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"tolerance": 2, "cases": cases}))
    return str(path)


def _run(manifest, root, *extra):
    env = {**os.environ, "PYTHONPATH": ROOT}
    r = subprocess.run([sys.executable, SCRIPT, "--manifest", manifest, "--mirror-root", str(root), *extra],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_realworld_scores_positive_negative_and_unavailable(tmp_path, mirror):
    root, buggy, fixed = mirror
    cases = [
        {"id": "pos", "kind": "positive", "repo": "someone/trainer", "commit": buggy, "path": "pkg/train.py",
         "code": "AD102", "line": 13},  # one line off: within the tolerance of 2
        {"id": "neg-item", "kind": "negative", "repo": "someone/trainer", "commit": buggy,
         "path": "pkg/train.py", "code": "AD102", "span": [14, 21]},
        {"id": "neg-fixed", "kind": "negative", "repo": "someone/trainer", "commit": fixed,
         "path": "pkg/train.py", "code": "AD102", "span": [1, 21]},
        {"id": "gone", "kind": "positive", "repo": "nobody/missing", "commit": buggy, "path": "x.py",
         "code": "AD106", "line": 3},
        {"id": "held", "kind": "positive", "repo": "someone/trainer", "commit": buggy, "path": "pkg/train.py",
         "code": "AD104", "line": 2, "held_out": True},
    ]
    out = _run(_manifest(tmp_path, cases), root)
    assert out["held_out"] is False
    assert out["families"]["AD102"] == {"positives": 1, "found": 1, "recall": 1.0, "missed": []}
    assert "AD104" not in out["families"]  # the held-out case is not scored by default
    assert out["overall"]["negatives"] == 2
    assert out["overall"]["false_positives"] == 0
    assert out["unavailable"] == [{"repo": "nobody/missing", "commit": buggy, "fetch": "github:nobody/missing",
                                   "reason": "repository not mirrored", "cases": ["gone"]}]
    assert out["tool"]["path"] == ROOT


def test_realworld_held_out_scores_only_held_out(tmp_path, mirror):
    root, buggy, _ = mirror
    cases = [
        {"id": "dev", "kind": "positive", "repo": "someone/trainer", "commit": buggy, "path": "pkg/train.py",
         "code": "AD102", "line": 12},
        {"id": "held", "kind": "positive", "repo": "someone/trainer", "commit": buggy, "path": "pkg/train.py",
         "code": "AD104", "line": 12, "held_out": True},
    ]
    out = _run(_manifest(tmp_path, cases), root, "--held-out")
    assert out["held_out"] is True
    assert list(out["families"]) == ["AD104"]
    assert out["families"]["AD104"]["missed"][0]["id"] == "held"
    # the AD102 finding on that line is shown as a near miss, not counted
    assert out["families"]["AD104"]["missed"][0]["near"] == ["AD102@12"]


def test_in_run_keeps_batches_apart_from_dev_and_old_held_out():
    cases = [{"id": "dev"}, {"id": "old-held", "held_out": True},
             {"id": "fresh", "held_out": True, "batch": "b1"}, {"id": "other", "held_out": True, "batch": "b2"}]
    assert [c["id"] for c in cases if realworld.in_run(c, False, None)] == ["dev"]
    assert [c["id"] for c in cases if realworld.in_run(c, True, None)] == ["old-held"]
    assert [c["id"] for c in cases if realworld.in_run(c, False, "b1")] == ["fresh"]


@pytest.mark.slow
def test_realworld_batch_scores_only_that_batch(tmp_path, mirror):
    root, buggy, _ = mirror
    base = {"kind": "positive", "repo": "someone/trainer", "commit": buggy, "path": "pkg/train.py", "line": 12}
    cases = [
        {**base, "id": "dev", "code": "AD102"},
        {**base, "id": "old-held", "code": "AD104", "held_out": True},
        {**base, "id": "fresh", "code": "AD105", "held_out": True, "batch": "b1"},
        {**base, "id": "other", "code": "AD106", "held_out": True, "batch": "b2"},
    ]
    out = _run(_manifest(tmp_path, cases), root, "--batch", "b1")
    assert out["batch"] == "b1" and list(out["families"]) == ["AD105"]


def test_realworld_check_only_runs_no_tool(tmp_path, mirror):
    root, buggy, fixed = mirror
    cases = [
        {"id": "p", "kind": "positive", "repo": "someone/trainer", "commit": buggy, "path": "pkg/train.py",
         "code": "AD102", "line": 12, "held_out": True, "batch": "b"},
        {"id": "far", "kind": "positive", "repo": "someone/trainer", "commit": buggy, "path": "pkg/train.py",
         "code": "AD102", "line": 12, "also_lines": [99], "held_out": True, "batch": "b"},
        {"id": "nopath", "kind": "negative", "repo": "someone/trainer", "commit": fixed, "path": "pkg/x.py",
         "code": "AD102", "span": [1, 2], "held_out": True, "batch": "b"},
        {"id": "gone", "kind": "negative", "repo": "nobody/missing", "commit": fixed, "path": "x.py",
         "code": "AD102", "span": [1, 2], "held_out": True, "batch": "b"},
    ]
    # a broken interpreter proves that no tool runs
    out = _run(_manifest(tmp_path, cases), root, "--batch", "b", "--check-only", "--python", "/nonexistent")
    assert out["check_only"] is True and out["ok"] == 1
    assert out["checked"][0] == {"id": "p", "ok": True, "file_lines": 21, "line_text": "total_loss += loss"}
    assert [(p["id"], p["problem"]) for p in out["problems"]] == [
        ("far", "lines outside the file: [99]"), ("nopath", "path not in commit")]
    assert [u["id"] for u in out["unavailable"]] == ["gone"]
    assert "families" not in out


def test_realworld_batch_case_must_be_held_out(tmp_path):
    manifest = _manifest(tmp_path, [{"id": "x", "kind": "negative", "repo": "o/r", "commit": "c", "path": "a.py",
                                     "span": [1, 2], "batch": "b"}])
    with pytest.raises(SystemExit, match="must be held out"):
        realworld.load_manifest(manifest)


def test_realworld_missing_commit_is_unavailable(tmp_path, mirror):
    root, _, _ = mirror
    cases = [{"id": "p", "kind": "positive", "repo": "someone/trainer", "commit": "0" * 40,
              "path": "pkg/train.py", "code": "AD102", "line": 12}]
    out = _run(_manifest(tmp_path, cases), root)
    assert out["unavailable"][0]["reason"] == "commit not in the mirror"
    assert out["overall"]["positives"] == 0


def test_realworld_score_tolerance_codes_and_false_positive_fix_kinds():
    key = ("o/r", "c", "a.py")
    cases = [
        {"id": "p1", "kind": "positive", "repo": "o/r", "commit": "c", "path": "a.py", "code": "AD101", "line": 10},
        {"id": "p2", "kind": "positive", "repo": "o/r", "commit": "c", "path": "a.py", "code": "AD103", "line": 30,
         "also_codes": ["AD108"]},
        {"id": "p3", "kind": "positive", "repo": "o/r", "commit": "c", "path": "a.py", "code": "AD106", "line": 50,
         "also_lines": [60]},
        {"id": "n1", "kind": "negative", "repo": "o/r", "commit": "c", "path": "a.py", "code": "AD102",
         "span": [70, 80]},
    ]
    findings = {key: [
        {"code": "AD101", "line": 14, "fix": "unsafe", "message": "m"},   # 4 lines off: outside tolerance 3
        {"code": "AD108", "line": 31, "fix": "unsafe", "message": "m"},   # an accepted second code
        {"code": "AD106", "line": 61, "fix": "safe", "message": "m"},     # near an also_line
        {"code": "AD102", "line": 75, "fix": "safe", "message": "m"},     # false positives, by fix kind
        {"code": "AD104", "line": 76, "fix": "none", "message": "m"},
        {"code": "AD203", "line": 77, "fix": "safe", "message": "m"},     # legacy rules are not scored
    ]}
    out = realworld.score(cases, findings, 3)
    assert out["families"]["AD101"]["found"] == 0
    assert out["families"]["AD103"]["found"] == 1
    assert out["families"]["AD106"]["found"] == 1
    assert out["overall"]["recall"] == round(2 / 3, 3)
    assert [fp["code"] for fp in out["false_positives"]] == ["AD102", "AD104"]
    assert out["overall"]["false_positives_with_fix"] == 1
    assert out["overall"]["false_positives_with_safe_fix"] == 1
    assert out["overall"]["negatives_with_false_positive"] == 1


def test_realworld_manifest_is_well_formed():
    data = realworld.load_manifest(realworld.DEFAULT_MANIFEST)
    ids = [c["id"] for c in data["cases"]]
    assert len(ids) == len(set(ids))
    rule = re.compile(r"AD1(0[1-9]|10)")
    for c in data["cases"]:
        assert re.fullmatch(r"[0-9a-f]{40}", c["commit"]), c["id"]
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", c["repo"]) and c["path"] and c["reason"], c["id"]
        if "batch" in c:  # a later held-out batch: all held out, not by the hash
            assert c["held_out"] is True and re.fullmatch(r"[\w.-]+", c["batch"]), c["id"]
            assert c.get("source"), c["id"]
        else:
            assert realworld.held_out_for(c["id"], data["seed"]) == c["held_out"], c["id"]
        # a notebook case names its code cell (1-based among all cells, as the tool reports it)
        assert (isinstance(c.get("cell"), int) and c["cell"] > 0) == c["path"].endswith(".ipynb"), c["id"]
        if c["kind"] == "positive":
            assert rule.fullmatch(c["code"]) and all(rule.fullmatch(x) for x in c.get("also_codes", [])), c["id"]
            assert all(isinstance(n, int) and n > 0 for n in [c["line"], *c.get("also_lines", [])]), c["id"]
        else:
            first, last = c["span"]
            assert isinstance(first, int) and 0 < first <= last, c["id"]


def test_realworld_tool_timeout_is_an_error_not_a_hang(tmp_path, mirror):
    root, buggy, _ = mirror
    cases = [{"id": "p", "kind": "positive", "repo": "someone/trainer", "commit": buggy,
              "path": "pkg/train.py", "code": "AD102", "line": 12}]
    out = _run(_manifest(tmp_path, cases), root, "--timeout", "0.001")
    assert out["errors"][0]["message"].startswith("timed out after")
    assert out["families"]["AD102"]["found"] == 0


def test_select_keeps_the_named_codes_and_ids():
    cases = [{"id": "a-gan", "kind": "positive", "code": "AD108"},
             {"id": "b-acc", "kind": "positive", "code": "AD102", "also_codes": ["AD108"]},
             {"id": "c-acc", "kind": "positive", "code": "AD102"},
             {"id": "d-ok", "kind": "negative", "span": [1, 2]}]
    assert realworld.select(cases, None, None, False) == cases
    assert [c["id"] for c in realworld.select(cases, "AD108", None, False)] == ["a-gan", "b-acc"]
    assert [c["id"] for c in realworld.select(cases, "AD108", None, True)] == ["a-gan", "b-acc", "d-ok"]
    assert [c["id"] for c in realworld.select(cases, None, "c-,d-", False)] == ["c-acc", "d-ok"]


def test_fetch_plan_puts_the_newest_batch_then_positives_first(tmp_path, mirror):
    root, buggy, fixed = mirror
    pos = {"kind": "positive", "code": "AD102", "commit": buggy, "line": 1}
    cases = [
        {"id": "a", "kind": "negative", "repo": "x/neg-only", "commit": buggy, "path": "p.py", "span": [1, 2]},
        {"id": "b", **pos, "repo": "x/one-pos", "path": "p.py"},
        {"id": "c", **pos, "repo": "x/two-pos", "path": "p.py"},
        {"id": "d", **pos, "repo": "x/two-pos", "path": "q.py"},
        {"id": "e", "kind": "negative", "repo": "x/new", "commit": buggy, "path": "p.py", "span": [1, 2],
         "batch": "fresh-2026-12-09", "held_out": True},
        {"id": "f", **pos, "repo": "x/old", "path": "p.py",
         "batch": "fresh-2026-12-01", "held_out": True},
        {"id": "g", **pos, "repo": "someone/trainer", "path": "p.py"},
    ]
    plan = realworld.fetch_plan(cases, str(root), 3)
    assert plan["plan"] == ["github:x/new", "github:x/two-pos", "github:x/old"]
    assert (plan["repositories"], plan["mirrored"], plan["missing"], plan["left_out"]) == (6, 1, 5, 2)
    out = _run(_manifest(tmp_path, cases), root, "--fetch-plan", "10")
    assert out["plan"][-1] == "github:x/neg-only"


def test_realworld_counts_files_with_an_internal_error_once():
    errors = [
        {"repo": "o/r", "commit": "c", "path": "train.py",
         "message": "internal error in rule AD101: AttributeError: x (at a.py:3)"},
        {"repo": "o/r", "commit": "c", "path": "train.py",
         "message": "internal error in rule AD108: AttributeError: x (at a.py:3)"},
        {"repo": "o/r", "commit": "c", "message": "autodetach: train.py: internal error in rule AD101: ..."},
        {"repo": "o/r", "commit": "c", "path": "gone.py", "message": "path not in commit"},
    ]
    assert realworld.internal_errors(errors) == 1
    assert realworld.internal_errors([]) == 0


def _cell(kind, text):
    return {"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True),
            **({"outputs": [], "execution_count": None} if kind == "code" else {})}


def test_realworld_scores_notebook_cases_by_cell_and_line(tmp_path):
    """A notebook case names its cell; a finding counts only in that cell, at a line within it."""
    work = tmp_path / "mirrors" / "someone+nb" / "repo"
    work.mkdir(parents=True)
    _git(work, "init", "-q")
    head, buggy_loop = TRAIN.split("total_loss = 0\n")[0], "total_loss = 0\n" + TRAIN.split("total_loss = 0\n")[1]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [_cell("markdown", "# Training\n"), _cell("code", head), _cell("code", buggy_loop)]}
    (work / "train.ipynb").write_text(json.dumps(nb, indent=1))
    _git(work, "add", ".")
    _git(work, "commit", "-qm", "nb")
    commit = _git(work, "rev-parse", "HEAD")
    root = tmp_path / "mirrors"
    base = {"repo": "someone/nb", "commit": commit, "path": "train.ipynb", "held_out": True, "batch": "b"}
    # `total_loss += loss` is line 7 of the third cell
    cases = [{**base, "id": "pos", "kind": "positive", "code": "AD102", "cell": 3, "line": 7},
             {**base, "id": "wrong-cell", "kind": "positive", "code": "AD102", "cell": 2, "line": 7},
             {**base, "id": "neg-head", "kind": "negative", "code": "AD102", "cell": 2, "span": [1, 5]},
             {**base, "id": "neg-item", "kind": "negative", "code": "AD102", "cell": 3, "span": [9, 16]}]
    out = _run(_manifest(tmp_path, cases), root, "--batch", "b")
    fam = out["families"]["AD102"]
    assert (fam["positives"], fam["found"]) == (2, 1)
    assert [m["id"] for m in fam["missed"]] == ["wrong-cell"]
    assert out["overall"]["negatives"] == 2 and out["overall"]["false_positives"] == 0
    checked = _run(_manifest(tmp_path, cases + [{**base, "id": "md", "kind": "negative", "code": "AD102",
                                                 "cell": 1, "span": [1, 1]}]),
                   root, "--batch", "b", "--check-only", "--python", "/nonexistent")
    assert checked["checked"][0]["line_text"] == "total_loss += loss"
    assert [(p["id"], p["problem"]) for p in checked["problems"]] == [
        ("wrong-cell", "lines outside the file: [7]"), ("md", "no code cell 1 in the notebook")]
