"""`autodetach ci` on notebooks, against real git and notebooks written by
the real nbformat: a changed notebook is checked whole, its fixes go into
the patch and the commit with outputs and metadata kept."""
import json
import os
import subprocess

import pytest

from .test_ci import ci, git, make_repo

nbformat = pytest.importorskip("nbformat")
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output  # noqa: E402

SETUP = "import torch\nfrom torch.autograd import Variable\nx = torch.randn(3)"
OLD = "h = Variable(x.data)"  # in the notebook before the pull request
NEW = "%matplotlib inline\ng = Variable(x.data) * 2\n!echo done"  # the cell the pull request adds


def notebook(path, cells):
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [new_markdown_cell("# Training")] + [new_code_cell(c) for c in cells]
    nb.cells[1].outputs = [new_output("stream", name="stdout", text="kept\n")]
    nbformat.write(nb, str(path))


@pytest.fixture
def nbrepo(tmp_path):
    r = make_repo(tmp_path)
    git(r, "checkout", "-q", "main")
    notebook(r / "train.ipynb", [SETUP, OLD])
    git(r, "add", "train.ipynb")
    git(r, "commit", "-q", "-m", "notebook")
    git(r, "checkout", "-q", "pr")
    git(r, "rebase", "-q", "main")
    notebook(r / "train.ipynb", [SETUP, OLD, NEW])
    git(r, "commit", "-q", "-am", "a cell")
    return r


def cells(path):
    nb = nbformat.read(str(path), as_version=4)
    nbformat.validate(nb)
    return nb


def test_a_changed_notebook_is_checked_whole_with_cell_positions(nbrepo):
    code, out, err = ci(nbrepo, "--changed-since", "main", "--output-format", "json")
    assert code == 1, err
    got = sorted((f["line"], f["cell"], f["code"]) for f in json.loads(out)["findings"]
                 if f["path"] == "train.ipynb")
    # Cell 3 holds OLD (unchanged), cell 4 the new one; both are reported.
    assert got == [(1, 3, "AD201"), (2, 4, "AD201")]


def test_patch_and_commit_fix_the_cells_and_keep_the_rest(nbrepo, tmp_path):
    patch = tmp_path / "fix.patch"
    code, out, _ = ci(nbrepo, "--changed-since", "main", "--patch", patch)
    assert "fixable with `autodetach ci --commit` (or `--patch FILE`)" in out
    assert "fixable with `--fix`" not in out
    text = patch.read_text(encoding="utf-8")
    assert "train.ipynb" in text
    subprocess.run(["git", "apply", "--check", str(patch)], cwd=nbrepo, check=True)
    git(nbrepo, "stash", "-q", "--include-untracked")
    code, out, err = ci(nbrepo, "--changed-since", "main", "--commit")
    assert code == 0, out + err
    msg = git(nbrepo, "log", "-1", "--format=%B")
    assert "train.ipynb:cell 3:1 AD201" in msg and "train.ipynb:cell 4:2 AD201" in msg
    nb = cells(nbrepo / "train.ipynb")
    assert [c.source for c in nb.cells[2:]] == [
        "h = x.detach()", "%matplotlib inline\ng = x.detach() * 2\n!echo done"]
    assert nb.cells[1].outputs[0]["text"] == "kept\n"  # outputs and metadata left alone
    assert nb.metadata["kernelspec"]["name"] == "python3"
    # The patch is what was committed.
    committed = git(nbrepo, "show", "HEAD:train.ipynb")
    git(nbrepo, "checkout", "-q", "HEAD~1", "--", "train.ipynb")
    subprocess.run(["git", "apply", "--include", "train.ipynb", str(patch)], cwd=nbrepo, check=True)
    assert (nbrepo / "train.ipynb").read_text(encoding="utf-8") == committed
    git(nbrepo, "checkout", "-q", "HEAD", "--", "train.ipynb")
    code, out, _ = ci(nbrepo, "--changed-since", "main", "--output-format", "json")
    assert code == 0 and [f for f in json.loads(out)["findings"] if f["path"] == "train.ipynb"] == []


def test_rdjson_names_the_cell_without_a_json_line_range(nbrepo):
    code, out, _ = ci(nbrepo, "--changed-since", "main", "--output-format", "rdjson")
    mine = [d for d in json.loads(out)["diagnostics"] if d["location"]["path"] == "train.ipynb"]
    assert sorted(d["message"].split(":")[0] for d in mine) == ["cell 3, line 1", "cell 4, line 2"]
    assert all("range" not in d["location"] and "suggestions" not in d for d in mine)


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
