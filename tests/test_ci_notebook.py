"""`autodetach ci` on notebooks, against real git and notebooks written by
the real nbformat: a changed notebook's changed lines are its changed code
cells' lines, findings are reported there only, fixes are offered there
only, and the patch and the commit keep outputs and metadata."""
import json
import os
import subprocess

import pytest

from .test_ci import ci, git, make_repo

nbformat = pytest.importorskip("nbformat")
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output  # noqa: E402

from autodetach import notebook as nbook  # noqa: E402
from autodetach.ci.nblines import cell_changes, changed  # noqa: E402

SETUP = "import torch\nfrom torch import nn, optim\nfrom torch.autograd import Variable\nx = torch.randn(3)"
OLD = "h = Variable(x.data)"  # a bug before the pull request, in a cell it leaves alone
MODELS = ("G = nn.Linear(4, 2)\nD = nn.Linear(2, 1)\nbce = nn.BCEWithLogitsLoss()\n"
          "opt_g = optim.SGD(G.parameters(), lr=0.1)\nopt_d = optim.SGD(D.parameters(), lr=0.1)")
PLAIN = "y = x * 2"
EDITED = "%matplotlib inline\ny = Variable(x.data) * 2\n!echo done"  # PLAIN as the pull request edits it
STEP = ("for _ in range(3):\n    fake = G(torch.randn(8, 4))\n    opt_g.zero_grad()\n"
        "    g_loss = bce(D(fake), torch.ones(8, 1))\n    g_loss.backward()\n    opt_g.step()\n"
        "    opt_d.zero_grad()\n"
        "    d_loss = bce(D(torch.randn(8, 2)), torch.ones(8, 1)) + bce(D(fake), torch.zeros(8, 1))\n"
        "    d_loss.backward()\n    opt_d.step()")  # the GAN step the pull request adds
BASE = [SETUP, OLD, MODELS, PLAIN]
PR = [SETUP, OLD, MODELS, EDITED, STEP]
# (cell, line, code) on the pull request's cells: cell 1 is the markdown one.
NEW_FINDINGS = [(5, 2, "AD201"), (6, 8, "AD103")]  # no AD108: G (a Linear on noise) saved no weight its step changes
OLD_FINDING = (3, 1, "AD201")


def notebook(path, cells, output="kept\n"):
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [new_markdown_cell("# Training")] + [new_code_cell(c) for c in cells]
    nb.cells[1].outputs = [new_output("stream", name="stdout", text=output)]
    nbformat.write(nb, str(path))


def commit_on(r, branch, cells, **kw):
    git(r, "checkout", "-q", branch)
    notebook(r / "train.ipynb", cells, **kw)
    git(r, "add", "train.ipynb")
    git(r, "commit", "-q", "-m", f"notebook on {branch}")


@pytest.fixture
def base_repo(tmp_path):
    """The scratch repository of test_ci with train.ipynb (BASE) on main,
    and the pull request branch `pr` rebased onto it."""
    r = make_repo(tmp_path)
    commit_on(r, "main", BASE)
    git(r, "checkout", "-q", "pr")
    git(r, "rebase", "-q", "main")
    return r


@pytest.fixture
def nbrepo(base_repo):
    commit_on(base_repo, "pr", PR)
    return base_repo


def nb_found(out):
    return sorted((f["cell"], f["line"], f["code"]) for f in json.loads(out)["findings"]
                  if f["path"] == "train.ipynb")


def cells(path):
    nb = nbformat.read(str(path), as_version=4)
    nbformat.validate(nb)
    return nb


def test_only_the_changed_cells_findings_are_reported(nbrepo):
    code, out, err = ci(nbrepo, "--changed-since", "main", "--output-format", "json")
    assert code == 1, err
    assert nb_found(out) == NEW_FINDINGS  # not OLD_FINDING: its cell is as it was


def test_whole_files_reports_the_untouched_cells_finding(nbrepo):
    code, out, _ = ci(nbrepo, "--changed-since", "main", "--whole-files", "--output-format", "json")
    assert code == 1 and nb_found(out) == sorted(NEW_FINDINGS + [OLD_FINDING])


@pytest.mark.parametrize("fmt", ["rdjson", "sarif", "github", "gitlab", "full", "concise"])
def test_every_format_reports_only_the_changed_cells(nbrepo, fmt, tmp_path):
    summary = tmp_path / "summary.md"
    code, out, _ = ci(nbrepo, "--changed-since", "main", "--output-format", fmt,
                      env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert code == 1
    mine = [ln for ln in out.splitlines() if "cell 3" in ln or "cell 5" in ln]
    if fmt == "rdjson":
        diags = [d for d in json.loads(out)["diagnostics"] if d["location"]["path"] == "train.ipynb"]
        assert sorted(d["message"].split(":")[0] for d in diags) == \
            ["cell 5, line 2", "cell 6, line 8"]
        assert all("range" not in d["location"] and "suggestions" not in d for d in diags)
    elif fmt == "sarif":
        cells_seen = sorted(r["properties"]["cell"] for r in json.loads(out)["runs"][0]["results"]
                            if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "train.ipynb")
        assert cells_seen == [5, 6]
    elif fmt == "gitlab":
        items = [i for i in json.loads(out) if i["location"]["path"] == "train.ipynb"]
        assert sorted(i["check_name"].split()[0] for i in items) == ["AD103", "AD201"]
        # the AD201 of cell 5, line 2; not the one of cell 3, line 1
        assert [i["location"]["lines"]["begin"] for i in items if i["check_name"].startswith("AD201")] == [2]
    else:
        assert mine and all("cell 3" not in ln for ln in mine)
    text = summary.read_text()
    assert "train.ipynb:cell 5:2" in text and "train.ipynb:cell 3" not in text


def offer_patch(repo, patch):
    code, out, _ = ci(repo, "--changed-since", "main", "--patch", patch)
    assert code == 1 and "fixable with `autodetach ci --commit` (or `--patch FILE`)" in out
    text = patch.read_text(encoding="utf-8")
    assert "train.ipynb" in text and "autodetach-ci-hold" not in text
    subprocess.run(["git", "apply", "--check", str(patch)], cwd=repo, check=True)
    return text


def test_the_patch_fixes_only_the_changed_cells(nbrepo, tmp_path):
    text = offer_patch(nbrepo, tmp_path / "fix.patch")
    ipynb = text[text.index("--- a/train.ipynb"):].split("\n--- a/")[0]  # the next file's diff cut off
    removed = [ln for ln in ipynb.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    d_loss = "    d_loss = bce(D(torch.randn(8, 2)), torch.ones(8, 1)) + bce(D(fake), torch.zeros(8, 1))"
    assert removed == ['-    "y = Variable(x.data) * 2\\n",', f'-    "{d_loss}\\n",']


@pytest.mark.slow  # five runs of the bot
def test_commit_fixes_only_the_changed_cells_and_a_second_run_is_clean(nbrepo, tmp_path):
    patch = tmp_path / "fix.patch"
    offer_patch(nbrepo, patch)
    git(nbrepo, "stash", "-q", "--include-untracked")
    code, out, err = ci(nbrepo, "--changed-since", "main", "--commit")
    assert code == 0, out + err  # AD103's detach also ends AD108's stale graph
    msg = git(nbrepo, "log", "-1", "--format=%B")
    assert "train.ipynb:cell 5:2 AD201" in msg and "train.ipynb:cell 6:8 AD103" in msg
    assert "cell 3" not in msg
    nb = cells(nbrepo / "train.ipynb")
    assert [c.source for c in nb.cells[1:]] == [
        SETUP, OLD, MODELS, EDITED.replace("Variable(x.data)", "x.detach()"),
        STEP.replace("D(fake), torch.zeros", "D(fake.detach()), torch.zeros")]
    assert nb.cells[1].outputs[0]["text"] == "kept\n"  # outputs and metadata left alone
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert "autodetach-ci-hold" not in (nbrepo / "train.ipynb").read_text(encoding="utf-8")
    # The patch is what was committed.
    committed = git(nbrepo, "show", "HEAD:train.ipynb")
    git(nbrepo, "checkout", "-q", "HEAD~1", "--", "train.ipynb")
    subprocess.run(["git", "apply", "--include", "train.ipynb", str(patch)], cwd=nbrepo, check=True)
    assert (nbrepo / "train.ipynb").read_text(encoding="utf-8") == committed
    git(nbrepo, "checkout", "-q", "HEAD", "--", "train.ipynb")
    # A second run: nothing left to fix on the changed lines.
    again = tmp_path / "again.patch"
    code, out, _ = ci(nbrepo, "--changed-since", "main", "--output-format", "json", "--patch", again)
    assert code == 0 and nb_found(out) == [] and again.read_text() == ""
    code, out, _ = ci(nbrepo, "--changed-since", "main", "--whole-files", "--output-format", "json")
    assert nb_found(out) == [OLD_FINDING]  # the untouched cell's bug is still there, for a human


def test_only_outputs_and_metadata_changed_reports_nothing(base_repo):
    notebook(base_repo / "train.ipynb", BASE, output="another run\n")
    nb = nbformat.read(str(base_repo / "train.ipynb"), as_version=4)
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells[0].source = "# Training, explained"  # markdown is not code either
    nbformat.write(nb, str(base_repo / "train.ipynb"))
    git(base_repo, "commit", "-q", "-am", "re-ran it")
    assert "train.ipynb" in git(base_repo, "diff", "--name-only", "main")
    code, out, _ = ci(base_repo, "--changed-since", "main", "--output-format", "json", "train.ipynb")
    assert (code, nb_found(out)) == (0, [])


def test_a_cell_inserted_above_does_not_report_the_old_cells(base_repo, tmp_path):
    # Lines shift: the old cells' findings move down a cell, and stay unreported.
    commit_on(base_repo, "pr", ["import os\nh2 = Variable(x.data)", SETUP, OLD, MODELS, PLAIN])
    code, out, _ = ci(base_repo, "--changed-since", "main", "--output-format", "json", "train.ipynb")
    assert nb_found(out) == [(2, 2, "AD201")]
    patch = tmp_path / "p.diff"
    ci(base_repo, "--changed-since", "main", "--patch", patch, "train.ipynb")
    diff = [ln for ln in patch.read_text().splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
    assert diff == ['-    "h2 = Variable(x.data)"', '+    "h2 = x.detach()"']


def test_a_renamed_notebook_with_the_same_code_is_not_checked(base_repo):
    git(base_repo, "mv", "train.ipynb", "moved.ipynb")
    notebook(base_repo / "moved.ipynb", BASE, output="other output\n")
    git(base_repo, "commit", "-q", "-am", "renamed, re-ran")
    code, out, _ = ci(base_repo, "--changed-since", "main", "--output-format", "json", "moved.ipynb")
    assert code == 0 and json.loads(out)["findings"] == []


def test_a_new_notebook_is_all_changed(base_repo):
    notebook(base_repo / "new.ipynb", [SETUP, OLD])
    git(base_repo, "add", "new.ipynb")
    git(base_repo, "commit", "-q", "-m", "new")
    code, out, _ = ci(base_repo, "--changed-since", "main", "--output-format", "json", "new.ipynb")
    assert code == 1 and [(f["cell"], f["code"]) for f in json.loads(out)["findings"]] == [(3, "AD201")]


def test_a_fix_tied_to_an_untouched_line_is_left_for_a_human(base_repo, tmp_path):
    """One statement holds an old finding and a new one of the same rule:
    the old one cannot be held back alone, so nothing is offered."""
    before = "z = (Variable(x.data) +\n     x)"
    commit_on(base_repo, "main", BASE + [before])
    git(base_repo, "checkout", "-q", "pr")
    git(base_repo, "rebase", "-q", "main")
    commit_on(base_repo, "pr", BASE + [before.replace("     x)", "     Variable(x.data))")])
    patch, summary = tmp_path / "p.diff", tmp_path / "s.md"
    code, out, _ = ci(base_repo, "--changed-since", "main", "--patch", patch, "--output-format", "json",
                      "train.ipynb", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert code == 1 and nb_found(out) == [(6, 2, "AD201")]
    assert patch.read_text() == ""
    assert "its fix also rewrites lines outside this change" in summary.read_text()


def test_an_unchanged_notebook_is_not_checked(nbrepo):
    git(nbrepo, "checkout", "-q", "-b", "pr2")
    (nbrepo / "other.py").write_text("x = 1\n")
    git(nbrepo, "add", "other.py")
    git(nbrepo, "commit", "-q", "-m", "py only")
    code, out, _ = ci(nbrepo, "--changed-since", "pr", "--output-format", "json")
    assert code == 0 and json.loads(out)["findings"] == []
    assert os.path.exists(nbrepo / "train.ipynb")


def test_the_freed_import_is_noted_once(tmp_path):
    nb = tmp_path / "a.ipynb"
    notebook(nb, [SETUP, "%time y = 1\nh = Variable(x.data)"])
    code, out, _ = ci(tmp_path, "--output-format", "full")
    assert code == 1
    assert out.count("the fix changes this too: `Variable` (torch.autograd.Variable) is imported") == 1
    assert "a.ipynb:cell 3:2:5: AD201" in out


# ------------------------------------------------- changed lines, in cells


def read(tmp_path, cells_, name="n.ipynb"):
    notebook(tmp_path / name, cells_)
    return (tmp_path / name).read_bytes()


def test_changed_lines_follow_cells_not_json(tmp_path):
    old = read(tmp_path, ["a = 1\nb = 2", "c = 3", "d = 4\ne = 5"])
    # virtual lines: cell A 1-2, then 3, then 4-5
    assert changed(old, old) == set()
    assert changed(None, old) == {1, 2, 3, 4, 5}
    # an edit inside a cell: that line; a new cell: all its lines
    assert changed(old, read(tmp_path, ["a = 1\nb = 20", "c = 3", "d = 4\ne = 5"], "b.ipynb")) == {2}
    assert changed(old, read(tmp_path, ["a = 1\nb = 2", "new = 1\nmore = 2", "c = 3", "d = 4\ne = 5"],
                             "c.ipynb")) == {3, 4}
    # moved as it was, and a deleted cell: nothing new
    assert changed(old, read(tmp_path, ["d = 4\ne = 5", "a = 1\nb = 2", "c = 3"], "d.ipynb")) == set()
    assert changed(old, read(tmp_path, ["a = 1\nb = 2", "d = 4\ne = 5"], "e.ipynb")) == set()
    # a line added to a cell that is also moved, and line endings that differ
    got = changed(old, read(tmp_path, ["d = 4\ne = 5\nf = 6", "a = 1\r\nb = 2\r\n", "c = 3"], "f.ipynb"))
    assert got == {3}


def test_an_unreadable_head_is_checked_whole_and_an_unreadable_base_is_all_new(tmp_path):
    good = read(tmp_path, ["a = 1"])
    assert changed(good, b"{not json") is None
    assert changed(b"print('was a script')\n", good) == {1}


def test_an_edited_cell_is_matched_to_the_most_similar_one():
    head = nbook.read(nbformat.writes(nbformat.v4.new_notebook(cells=[
        new_code_cell("x = 1\ny = 2\nz = 3\nw = 4"), new_code_cell("p = 1\nq = 2\nr = 3\ns = 40")])).encode())
    # both cells edited, in swapped order: each is matched to its own old self
    assert cell_changes(["p = 1\nq = 2\nr = 3\ns = 4", "x = 1\ny = 2\nz = 3\nw = 5"], head) == {4, 8}


def test_gitlab_fingerprints_hash_the_cells_line(nbrepo):
    """The line's text is read from its cell (not the JSON), so a finding
    keeps its fingerprint when a cell with the same rule's finding is
    inserted above it."""
    def edited():  # the fingerprint of the AD201 in EDITED, the only one on a line 2
        _, out, _ = ci(nbrepo, "--changed-since", "main", "--whole-files", "--output-format", "gitlab",
                       "train.ipynb")
        (got,) = [i["fingerprint"] for i in json.loads(out)
                  if i["check_name"].startswith("AD201") and i["location"]["lines"]["begin"] == 2]
        return got

    before = edited()
    commit_on(nbrepo, "pr", ["y2 = Variable(x.data)"] + PR)
    assert edited() == before
