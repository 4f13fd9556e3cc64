"""Jupyter notebooks, read and written by the real nbformat: the code cells
are one program, positions are cell and line, IPython syntax survives,
outputs and metadata are left alone, and only changed cells are rewritten."""
import json
import os

import pytest

nbformat = pytest.importorskip("nbformat")
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output  # noqa: E402

from autodetach import nbmask, notebook  # noqa: E402

from .corpus import CORPUS, run_script  # noqa: E402
from .test_cli import run_cli  # noqa: E402

NB_CORPUS = os.path.join(CORPUS, "notebooks")


def make(path, cells, **meta):
    """A notebook as Jupyter writes it (nbformat, indent 1)."""
    nb = new_notebook()
    nb.metadata.update(meta)
    nb.cells = [new_markdown_cell(c[3:]) if c.startswith("md:") else new_code_cell(c) for c in cells]
    nbformat.write(nb, str(path))
    return str(path)


def raw(path):
    with open(path, "rb") as fh:
        return fh.read()


MODEL = ("import torch\nfrom torch.autograd import Variable\nmodel = torch.nn.Linear(2, 1)\n"
         "opt = torch.optim.SGD(model.parameters(), lr=0.1)")
TRAIN = ("total = 0\nfor step in range(3):\n    loss = model(torch.randn(4, 2)).mean()\n    opt.zero_grad()\n"
         "    loss.backward()\n    opt.step()\n    total += loss\nprint(total)")


# ---------------------------------------------------------------- masking

def test_mask_keeps_lines_and_restores_them():
    src = ("%matplotlib inline\n!pip install x \\\n   y\nimport torch\nfiles = !ls\n"
           "for i in range(2):\n    %time f(i)\ntorch.zeros?\n")
    m = nbmask.mask_cell(src, [0])
    assert len(m.text.splitlines()) == len(src.splitlines())
    assert "%" not in m.text and "!" not in m.text and "?" not in m.text
    assert "    pass  # autodetach-masked-" in m.text  # indented magic: still a statement
    import libcst

    libcst.parse_module(m.text)
    assert nbmask.restore(m.text, m) == src


def test_mask_leaves_python_alone():
    src = "z = (a\n     % b)\ns = '''\n!not a shell escape\n'''\nx = y != z\nq = d['?']\n"
    m = nbmask.mask_cell(src, [0])
    assert m.text == src and m.originals == {}


def test_cell_magics():
    bash = nbmask.mask_cell("%%bash\nfor f in *; do echo $f; done\n", [0])
    assert all(ln.startswith("# autodetach-masked-") for ln in bash.text.splitlines())
    timed = nbmask.mask_cell("%%time\nx = 1\n", [0])
    assert timed.text.splitlines()[1] == "x = 1"  # the body is Python and analysed


def test_restore_refuses_a_moved_placeholder():
    m = nbmask.mask_cell("x = 1\n%time y = 2\n", [0])
    moved = m.text.replace("pass", "    pass")
    assert nbmask.restore("with a:\n" + moved, m) is None
    assert nbmask.restore("x = 1\n", m) is None  # removed


# ------------------------------------------------------------ reporting

def test_model_in_one_cell_trained_in_another(tmp_path):
    nb = make(tmp_path / "t.ipynb", ["md:# title", MODEL, "md:text", "%time x = 1\n" + TRAIN])
    r = run_cli(["--no-cache", "--output-format", "concise", nb], select="AD102")
    assert r.code == 1
    assert r.lines[0].startswith(f"{nb}:cell 4:8:14: AD102 [*] `total` accumulates `loss`"), r.out
    assert "(line 8)" in r.lines[0]  # the message's own line references are in cell terms too


def test_full_output_shows_the_cell_line(tmp_path):
    nb = make(tmp_path / "t.ipynb", [MODEL, TRAIN])
    r = run_cli(["--no-cache", nb], select="AD102")
    assert "     7 |     total += loss" in r.out, r.out


def test_json_and_sarif_carry_the_cell(tmp_path):
    nb = make(tmp_path / "t.ipynb", ["md:x", MODEL, TRAIN])
    r = run_cli(["--no-cache", "--output-format", "json", nb], select="AD102")
    doc = json.loads(r.out)
    (f,) = doc["findings"]
    assert (f["cell"], f["line"], f["column"]) == (3, 7, 14)
    r = run_cli(["--no-cache", "--output-format", "sarif", nb], select="AD102")
    (res,) = json.loads(r.out)["runs"][0]["results"]
    assert res["properties"] == {"cell": 3}
    assert res["locations"][0]["logicalLocations"][0]["name"] == "cell 3"
    assert res["locations"][0]["physicalLocation"]["region"]["startLine"] == 7
    r = run_cli(["--no-cache", "--output-format", "github", nb], select="AD102")
    assert r.out.startswith("::warning file=") and "line=" not in r.out.split("::")[1] and "cell 3, line 7" in r.out
    # GitLab's lines are the cell's (the JSON's mean nothing): the description names the cell
    r = run_cli(["--no-cache", "--output-format", "gitlab", nb], select="AD102")
    (item,) = json.loads(r.out)
    assert item["location"]["lines"]["begin"] == 7 and item["description"].startswith("AD102 cell 3, line 7: ")


def test_python_files_have_no_cell_key(tmp_path):
    py = tmp_path / "a.py"
    py.write_text("from torch.autograd import Variable\nh = Variable(h.data)\n")
    (f,) = json.loads(run_cli(["--no-cache", "--output-format", "json", py]).out)["findings"]
    assert "cell" not in f


def test_syntax_error_in_a_cell_is_reported_there(tmp_path):
    nb = make(tmp_path / "t.ipynb", [MODEL, "h = Variable(h.data)\nx = (", "y = 1"])
    r = run_cli(["--no-cache", "--output-format", "concise", nb])
    assert r.code == 1 and ":cell 2:" in r.out and "AD000" in r.out, r.out


def test_not_a_notebook_is_one_finding_and_left_alone(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_bytes(b'{"cells": [Variable')
    r = run_cli(["--no-cache", "--fix", "--output-format", "concise", bad])
    assert r.code == 1 and r.lines[0] == f"{bad}:1:12: AD000 cannot read notebook: not valid JSON: Expecting value"
    # valid JSON, invalid notebook
    bad.write_bytes(b'{"nbformat": 4, "cells": [{"cell_type": "code", "source": "y.backward()"}]}')
    r = run_cli(["--no-cache", "--output-format", "concise", bad], select="ALL")
    assert r.code == 1 and r.lines[0].startswith(f"{bad}:1:1: AD000 cannot read notebook: invalid notebook: "), r.out
    assert "Traceback" not in r.err
    assert raw(bad) == b'{"nbformat": 4, "cells": [{"cell_type": "code", "source": "y.backward()"}]}'


def test_directories_find_notebooks(tmp_path):
    make(tmp_path / "a.ipynb", [MODEL, TRAIN])
    os.makedirs(tmp_path / ".ipynb_checkpoints")
    make(tmp_path / ".ipynb_checkpoints" / "a-checkpoint.ipynb", [MODEL, TRAIN])  # Jupyter's autosave
    r = run_cli(["--no-cache", "--output-format", "concise", tmp_path], select="AD102", jobs=False)
    assert [ln.split(":cell")[0] for ln in r.lines if "AD102" in ln] == [str(tmp_path / "a.ipynb")], r.out


def test_cache_serves_notebook_findings(tmp_path):
    nb = make(tmp_path / "t.ipynb", [MODEL, TRAIN])
    (tmp_path / "pyproject.toml").write_text("[tool.autodetach]\n")
    first = run_cli(["--output-format", "json", "t.ipynb"], cwd=tmp_path, select="AD102")
    assert os.path.isdir(tmp_path / ".autodetach_cache")
    second = run_cli(["--output-format", "json", "t.ipynb"], cwd=tmp_path, select="AD102")
    assert json.loads(second.out)["findings"] == json.loads(first.out)["findings"]
    assert json.loads(second.out)["findings"][0]["cell"] == 2
    # The second run was served from the cache, cells included.
    from autodetach import runner

    settings = runner.Settings(codes=("AD102",), cache_dir=str(tmp_path / "c"))
    first = list(runner.run([nb], settings))
    assert runner._CACHE.misses == 1 and runner._CACHE.hits == 0
    again = list(runner.run([nb], settings))
    assert runner._CACHE.hits == 1
    assert [f.to_dict() for f in again[0].findings] == [f.to_dict() for f in first[0].findings]
    assert again[0].findings[0].cell == 2


def test_prefilter_skips_notebooks_without_tokens(tmp_path):
    nb = make(tmp_path / "t.ipynb", ["import os\nprint(os.sep)"])
    res = notebook.process(raw(nb), nb, [__import__("autodetach.registry").registry.by_code()["AD201"]],
                           notebook.Options())
    assert res.skipped and not res.findings


# ------------------------------------------------------------------ fixing

def _sources(path):
    return [c.source for c in nbformat.read(path, as_version=4).cells]


def test_verify_reports_and_writes_a_notebook_as_without_it(tmp_path):
    """--verify does not run notebooks: their findings are reported and --fix
    writes them as without --verify. Before, the report hid them (exit 0),
    and a result from the cache was counted as fixed but never written."""
    nb = make(tmp_path / "t.ipynb", [MODEL, "h = torch.zeros(2)\nh = Variable(h.data)\n"])
    before = raw(nb)
    report = run_cli(["--verify", nb], cwd=tmp_path)
    assert report.code == 1 and "AD201" in report.out, report.out + report.err
    only = run_cli(["--verify", "--verified-only", "--fix", nb], cwd=tmp_path)
    assert only.code == 1 and raw(nb) == before, only.out + only.err
    fixed = run_cli(["--verify", "--fix", nb], cwd=tmp_path)  # served from the report run's cache
    assert fixed.code == 0 and "Fixed 1 finding" in fixed.out, fixed.out + fixed.err
    assert raw(nb) != before
    assert run_cli(["--no-cache", nb]).code == 0  # nothing left


def test_verify_says_why_a_notebook_fix_has_no_verdict(tmp_path):
    # Before: "Verification: nothing to verify (no fix was computed)." under a notebook's fixable finding.
    nb = make(tmp_path / "t.ipynb", [MODEL, "h = torch.zeros(2)\nh = Variable(h.data)\n"])
    text = run_cli(["--no-cache", "--verify", nb], cwd=tmp_path)
    assert "no fix was computed" not in text.out, text.out
    assert "t.ipynb:cell 2:2" in text.out and "unverifiable" in text.out, text.out
    doc = json.loads(run_cli(["--no-cache", "--verify", "--output-format", "json", nb], cwd=tmp_path).out)
    [f] = doc["findings"]
    assert f["verification"]["verdict"] == "unverifiable", f
    assert "does not run notebooks" in f["verification"]["details"]


def test_verify_command_on_notebooks_says_they_are_not_run(tmp_path):
    # `autodetach verify a.ipynb b.ipynb` said "no entry point: no main guard or top-level training code".
    nb = make(tmp_path / "t.ipynb", [MODEL, "h = torch.zeros(2)\nh = Variable(h.data)\n"])
    patched = tmp_path / "p.ipynb"
    patched.write_bytes(raw(nb).replace(b"Variable(h.data)", b"h.detach()"))
    res = run_cli(["verify", nb, str(patched), "--output-format", "json"], cwd=tmp_path, select=None, jobs=None)
    doc = json.loads(res.out)
    assert doc["verdict"] == "unverifiable" and "notebooks are not run as scripts" in doc["details"], doc
    assert "no main guard" not in res.out


def test_fix_writes_only_the_changed_cell(tmp_path):
    nb = tmp_path / "t.ipynb"
    book = new_notebook()
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    book.cells = [new_code_cell(MODEL, execution_count=1), new_markdown_cell("# é — notes"),
                  new_code_cell("!nvidia-smi\n" + TRAIN, execution_count=2,
                                outputs=[new_output("stream", name="stdout",
                                                    text="tensor(1.5, grad_fn=<AddBackward0>)\n")])]
    nbformat.write(book, str(nb))
    before = raw(nb)
    r = run_cli(["--no-cache", "--fix", nb], select="AD102")
    assert r.code == 0, r.out + r.err
    after = raw(nb)
    # Only the one source line changed, byte for byte, in nbformat's own layout.
    changed = [(a, b) for a, b in zip(before.split(b"\n"), after.split(b"\n")) if a != b]
    assert changed == [(b'    "    total += loss\\n",', b'    "    total += loss.item()\\n",')]
    new = nbformat.read(str(nb), as_version=4)
    nbformat.validate(new)
    assert new.cells[2].source.startswith("!nvidia-smi\n")  # the shell escape survived
    assert new.cells[2].outputs == book.cells[2].outputs and new.metadata == book.metadata
    assert [c.get("id") for c in new.cells] == [c.get("id") for c in book.cells]
    again = run_cli(["--no-cache", "--fix", nb], select="AD102")
    assert again.code == 0 and raw(nb) == after  # idempotent


def test_no_findings_leaves_the_file_alone(tmp_path):
    nb = make(tmp_path / "t.ipynb", [MODEL, TRAIN.replace("total += loss", "total += loss.item()")])
    before, mtime = raw(nb), os.stat(nb).st_mtime_ns
    r = run_cli(["--no-cache", "--fix", nb], select="AD102")
    assert r.code == 0 and raw(nb) == before and os.stat(nb).st_mtime_ns == mtime


def test_other_json_styles_are_kept(tmp_path):
    """A notebook written with indent 2, unsorted keys, ASCII escapes, CRLF,
    and a source stored as one string: each kept."""
    book = new_notebook()
    book.cells = [new_code_cell(MODEL), new_code_cell(TRAIN + "  # ü")]
    doc = json.loads(nbformat.writes(book))
    doc = {"metadata": doc["metadata"], "nbformat": 4, "nbformat_minor": doc["nbformat_minor"],
           "cells": [dict(reversed(list(c.items()))) for c in doc["cells"]]}
    doc["cells"][1]["source"] = "".join(doc["cells"][1]["source"])
    text = json.dumps(doc, indent=2, ensure_ascii=True).replace("\n", "\r\n")
    nb = tmp_path / "t.ipynb"
    nb.write_bytes(text.encode())
    run_cli(["--no-cache", "--fix", nb], select="AD102")
    assert raw(nb) == text.replace("total += loss", "total += loss.item()").encode()


def test_hand_written_json_keeps_every_other_byte(tmp_path):
    """A layout no serializer reproduces (mixed indents, a float spelt
    1e-5, sources on one line): only the changed source value changes."""
    cells = [{"cell_type": "code", "metadata": {"lr": 1e-5}, "outputs": [], "execution_count": None,
              "source": MODEL.splitlines(keepends=True)},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": TRAIN.splitlines(keepends=True)}]
    body = ",\n".join("   " + json.dumps(c) for c in cells)
    text = ('{"nbformat": 4,  "nbformat_minor": 5,\n "metadata": {"scale": 1e-5},\n "cells": [\n'
            + body + "\n ]}")
    assert "1e-05" in text and "1e-5" in text  # json.dumps spells cells' floats its own way; the header by hand
    nb = tmp_path / "t.ipynb"
    nb.write_text(text)
    run_cli(["--no-cache", "--fix", nb], select="AD102")
    assert raw(nb).decode() == text.replace('"    total += loss\\n"', '"    total += loss.item()\\n"')
    assert raw(nb).decode() != text


def test_diff_shows_cells_and_applies_with_the_tree(tmp_path):
    """`--diff` shows each changed cell (as `#` lines, which `git apply` and
    `patch` skip), then the patch of the notebook's JSON. Before, the cell
    diffs alone made `git apply` refuse the whole tree's output, the `.py`
    files' patches too ("train.ipynb:cell 3: No such file or directory")."""
    import shutil
    import subprocess

    nb = make(tmp_path / "t.ipynb", ["md:x", MODEL, TRAIN])
    (tmp_path / "m.py").write_text(MODEL + "\n" + TRAIN + "\n")
    before = raw(nb)
    r = run_cli(["--no-cache", "--diff", "."], select="AD102", cwd=tmp_path)
    assert r.code == 1 and raw(nb) == before
    assert "# --- a/t.ipynb:cell 3" in r.lines and "# +++ b/t.ipynb:cell 3" in r.lines, r.out
    assert "# -    total += loss" in r.lines and "# +    total += loss.item()" in r.lines
    assert "--- a/t.ipynb" in r.lines and "--- a/m.py" in r.lines
    (tmp_path / "fix.patch").write_text(r.out)
    fixed = run_cli(["--no-cache", "--fix", nb], select="AD102")
    assert fixed.code == 0
    want = raw(nb)
    (tmp_path / "t.ipynb").write_bytes(before)
    if shutil.which("git"):
        app = subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, capture_output=True)
        assert app.returncode == 0, app.stderr
        assert raw(nb) == want and "loss.item()" in (tmp_path / "m.py").read_text()
    else:
        pytest.skip("git is not installed: applying the diff is not checked")


def test_a_fix_across_cells_or_magics_is_dropped_alone(tmp_path):
    """AD204 would wrap statements of two cells (and a masked %time line) in
    `with torch.no_grad():`; the AD201 fix inside one cell is still made."""
    nb = make(tmp_path / "t.ipynb", [
        "import torch\nfrom torch.autograd import Variable\nmodel = torch.nn.Linear(2, 2)",
        "x = Variable(torch.ones(1, 2), volatile=True)\n%time y = model(x)\nprint(y)",
        "w = Variable(x.data)\nprint(w)"])
    r = run_cli(["--no-cache", "--fix", "--output-format", "concise", nb], select="AD2")
    srcs = _sources(nb)
    assert srcs[1] == "x = Variable(torch.ones(1, 2), volatile=True)\n%time y = model(x)\nprint(y)"
    assert srcs[2] == "w = x.detach()\nprint(w)"
    assert ":cell 2:1:" in r.out and "AD204" in r.out  # left for a human, reported


def test_api_split_refuses_cross_cell_edits(tmp_path):
    nb = make(tmp_path / "t.ipynb", ["a = 1", "b = 2"])
    book = notebook.read(raw(nb))
    assert notebook.split(book, "a = 1\nb = 3\n") == {1: "b = 3"}
    assert notebook.split(book, "with c:\n    a = 1\n    b = 2\n") is None


def test_an_import_removed_at_the_end_of_a_cell_next_to_a_fix_in_the_next(tmp_path):
    """AD202 drops the last `Variable(...)` and with it the import, the last
    line of the cell above: the line diff saw one edit across two cells and
    left the whole notebook unfixed ("its safe fix did not apply here")."""
    nb = make(tmp_path / "t.ipynb", [
        "import torch\nfrom torch.autograd import Variable",
        "md:data",
        "a = Variable(torch.LongTensor([0, 1]))\nb = Variable(torch.ones(2))\nprint(a, b)"])
    r = run_cli(["--no-cache", "--fix", nb], select="AD202")
    assert r.code == 0, r.out + r.err
    assert _sources(nb) == ["import torch", "data", "a = torch.LongTensor([0, 1])\nb = torch.ones(2)\nprint(a, b)"]
    again = run_cli(["--no-cache", "--fix", nb], select="AD202")
    assert again.code == 0 and "Fixed" not in again.out


def test_api_split_follows_lines_across_a_cell_boundary(tmp_path):
    nb = make(tmp_path / "t.ipynb", ["x = 1\ny = 2", "z = 3\nw = 4"])
    book = notebook.read(raw(nb))
    assert notebook.split(book, "x = 1\nz = 5\nw = 4\n") == {0: "x = 1", 1: "z = 5\nw = 4"}
    assert notebook.split(book, "x = 1\ny = 7\nz = 8\nw = 4\n") == {0: "x = 1\ny = 7", 1: "z = 8\nw = 4"}
    # a line inserted at the boundary could belong to either cell
    assert notebook.split(book, "x = 1\ny = 7\nq = 0\nz = 8\nw = 4\n") is None


# ------------------------------------------------------------------ corpus

def _pairs():
    out = []
    for name in sorted(os.listdir(NB_CORPUS)):
        if name.endswith(".ipynb") and not name.endswith(".fixed.ipynb"):
            fixed = os.path.join(NB_CORPUS, name[:-6] + ".fixed.ipynb")
            out.append(pytest.param(os.path.join(NB_CORPUS, name), fixed, id=name[:-6]))
    return out


@pytest.mark.parametrize("before,fixed", _pairs())
def test_corpus_notebook_fix(before, fixed, tmp_path):
    from autodetach.engine import Options
    from autodetach.registry import all_rules

    res = notebook.process(raw(before), before, list(all_rules()), Options(fix=True))
    if not os.path.exists(fixed):
        assert res.findings == [] and res.new_source is None
        return
    assert res.new_source == raw(fixed)
    again = notebook.process(res.new_source, fixed, list(all_rules()), Options(fix=True))
    assert again.new_source is None and again.findings == []


def _script(path, tmp_path, name):
    """The code cells joined as autodetach sees them (IPython lines masked)."""
    out = tmp_path / name
    out.write_text(notebook.read(raw(path)).virtual(), encoding="utf-8")
    return str(out)


@pytest.mark.slow
@pytest.mark.parametrize("before,fixed", _pairs())
def test_corpus_notebook_runs(before, fixed, tmp_path):
    expect = nbformat.read(before, as_version=4).metadata["autodetach"]["expect-before"]
    run_before = run_script(_script(before, tmp_path, "before.py"))
    if expect.startswith("error "):
        assert run_before.returncode != 0 and expect[6:] in run_before.stderr, run_before.stderr[-2000:]
    else:
        assert run_before.returncode == 0, run_before.stderr[-2000:]
    if os.path.exists(fixed):
        run_after = run_script(_script(fixed, tmp_path, "after.py"))
        assert run_after.returncode == 0, run_after.stderr[-2000:]
        assert "checksum" in run_after.stdout
