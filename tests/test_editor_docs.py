"""The editor wiring documented in docs/cli.md works on real output: the
VS Code problem matcher's pattern reads the concise format, and the JSON
report carries its schema version."""
import json
import os
import re

from autodetach.output import JSON_VERSION

from .test_cli import run_cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _matcher() -> dict:
    with open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8") as fh:
        text = fh.read()
    block = text.split("**VS Code**", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    return json.loads(block)["tasks"][0]["problemMatcher"]


def test_vscode_problem_matcher_reads_concise_output(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "train.py").write_text("from torch.autograd import Variable\nh = Variable(h.data)\n")
    r = run_cli(["--output-format", "concise", "--exit-zero", "-q", "--no-cache", "."], cwd=tmp_path)
    assert r.code == 0
    pattern = _matcher()["pattern"]
    m = re.match(pattern["regexp"], r.out.splitlines()[0])
    assert m, r.out
    got = {k: m.group(pattern[k]) for k in ("file", "line", "column", "code", "message")}
    assert got == {"file": "sub/train.py", "line": "2", "column": "5", "code": "AD201",
                   "message": "`Variable(h.data)` re-wraps data to cut the graph; use `h.detach()`"}
    # A notebook position (cell N) is not mistaken for a file and line.
    assert not re.match(pattern["regexp"], "nb.ipynb:cell 7:3:5: AD201 [*] message")


def test_json_report_has_a_schema_version(tmp_path):
    (tmp_path / "a.py").write_text("from torch.autograd import Variable\nh = Variable(h.data)\n")
    doc = json.loads(run_cli(["--output-format", "json", "--no-cache", "a.py"], cwd=tmp_path).out)
    assert doc["schema_version"] == JSON_VERSION == 1
    assert set(doc) >= {"version", "schema_version", "summary", "findings", "errors"}
