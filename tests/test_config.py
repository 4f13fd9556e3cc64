"""Configuration through the real CLI: [tool.autodetach] in the nearest
pyproject.toml, a standalone autodetach.toml, --config, and errors."""
import os

import pytest

from .test_cli import BAD, FIXED, assert_one_line_error, read, run_cli, write


def _codes(res):
    return [ln.split(":")[0] for ln in res.lines if ": AD" in ln]


def test_nearest_pyproject_from_a_subdirectory(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.autodetach]\nignore = ["AD201"]\n')
    write(tmp_path / "pkg" / "a.py", BAD)
    assert run_cli(["pkg"], cwd=tmp_path, select=None).code == 0
    assert run_cli(["."], cwd=tmp_path / "pkg", select=None).code == 0
    # a nearer pyproject.toml with its own table wins
    write(tmp_path / "pkg" / "pyproject.toml", '[tool.autodetach]\nselect = ["AD2"]\n')
    assert run_cli(["pkg"], cwd=tmp_path, select=None).code == 1


def test_pyproject_without_our_table_does_not_stop_the_search(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.autodetach]\nignore = ["AD201"]\n')
    write(tmp_path / "pkg" / "pyproject.toml", '[project]\nname = "x"\n')
    write(tmp_path / "pkg" / "a.py", BAD)
    assert run_cli(["pkg"], cwd=tmp_path, select=None).code == 0


@pytest.mark.parametrize("name", ["autodetach.toml", ".autodetach.toml"])
def test_standalone_config_discovered(tmp_path, name):
    write(tmp_path / name, 'ignore = ["AD2"]\n')
    write(tmp_path / "a.py", BAD)
    assert run_cli(["a.py"], cwd=tmp_path, select=None).code == 0


def test_explicit_config_standalone_and_pyproject(tmp_path):
    write(tmp_path / "a.py", BAD)
    write(tmp_path / "conf" / "strict.toml", 'ignore = ["AD201"]\n')
    write(tmp_path / "conf" / "pyproject.toml", '[tool.autodetach]\nignore = ["AD201"]\n')
    assert run_cli(["a.py"], cwd=tmp_path, select=None).code == 1
    assert run_cli(["--config", "conf/strict.toml", "a.py"], cwd=tmp_path, select=None).code == 0
    assert run_cli(["--config", "conf/pyproject.toml", "a.py"], cwd=tmp_path, select=None).code == 0


def test_missing_config_file(tmp_path):
    write(tmp_path / "a.py", BAD)
    assert_one_line_error(run_cli(["--config", "nope.toml", "a.py"], cwd=tmp_path), "nope.toml: config file not found")


@pytest.mark.parametrize("text,fragments", [
    ('[tool.autodetach]\nselekt = ["AD2"]\n', ["unknown key `selekt`", "[tool.autodetach]"]),
    ('[tool.autodetach\nselect = 1\n', ["invalid TOML"]),
    ('[tool.autodetach]\nselect = "AD2\n', ["invalid TOML"]),
    ('[tool.autodetach]\nselect = 3\n', ["`select` must be a list of strings"]),
    ('[tool.autodetach]\nunsafe-fixes = "yes"\n', ["`unsafe-fixes` must be true or false"]),
    ('[tool.autodetach]\nper-file-ignores = ["x"]\n', ["per-file-ignores"]),
    ('[tool.autodetach]\nignore = ["NOPE"]\n', ["unknown rule selector 'NOPE'"]),
    ('[tool.autodetach.per-file-ignores]\n"a.py" = ["ZZ1"]\n', ["per-file-ignores", "'ZZ1'"]),
    ('[tool]\nautodetach = 3\n', ["must be a table"]),
])
def test_config_errors_are_one_line(tmp_path, text, fragments):
    write(tmp_path / "pyproject.toml", text)
    write(tmp_path / "a.py", BAD)
    res = run_cli(["a.py"], cwd=tmp_path, select=None)
    assert_one_line_error(res, "pyproject.toml", *fragments)


def test_invalid_toml_in_explicit_standalone(tmp_path):
    write(tmp_path / "c.toml", "select = [\n")
    write(tmp_path / "a.py", BAD)
    assert_one_line_error(run_cli(["--config", "c.toml", "a.py"], cwd=tmp_path), "c.toml: invalid TOML")


def test_per_file_ignores_with_globs_and_prefixes(tmp_path):
    write(tmp_path / "pyproject.toml",
          '[tool.autodetach.per-file-ignores]\n"tests/*" = ["AD2"]\n"legacy_*.py" = ["AD201"]\n')
    write(tmp_path / "tests" / "deep" / "t.py", BAD)
    write(tmp_path / "pkg" / "legacy_io.py", BAD)
    write(tmp_path / "pkg" / "model.py", BAD)
    res = run_cli(["--output-format", "concise", "."], cwd=tmp_path)
    assert res.code == 1
    assert _codes(res) == ["pkg/model.py"]
    # per-file ignores also stop the fix
    run_cli(["--fix", "."], cwd=tmp_path)
    assert read(tmp_path / "tests" / "deep" / "t.py") == BAD
    assert read(tmp_path / "pkg" / "model.py") == FIXED


def test_exclude(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.autodetach]\nexclude = ["third_party", "gen_*.py"]\n')
    write(tmp_path / "third_party" / "lib.py", BAD)
    write(tmp_path / "src" / "gen_model.py", BAD)
    write(tmp_path / "src" / "model.py", BAD)
    res = run_cli(["--output-format", "concise", "."], cwd=tmp_path)
    assert _codes(res) == ["src/model.py"]
    # a file named explicitly is checked anyway
    res = run_cli(["--output-format", "concise", "third_party/lib.py"], cwd=tmp_path)
    assert _codes(res) == ["third_party/lib.py"]


def test_select_from_config(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.autodetach]\nselect = ["AD201"]\n')
    write(tmp_path / "a.py", BAD)
    res = run_cli(["--output-format", "json", "a.py"], cwd=tmp_path, select=None)
    assert res.code == 1
    assert '"AD201"' in res.out


def test_config_root_is_where_the_file_is(tmp_path):
    """Relative patterns are relative to the configuration file, not the cwd."""
    write(tmp_path / "pyproject.toml", '[tool.autodetach]\nexclude = ["pkg/skip"]\n')
    write(tmp_path / "pkg" / "skip" / "a.py", BAD)
    write(tmp_path / "pkg" / "keep" / "a.py", BAD)
    res = run_cli(["--output-format", "concise", "."], cwd=tmp_path / "pkg")
    assert _codes(res) == ["keep/a.py"]
    assert os.path.exists(tmp_path / "pkg" / "skip" / "a.py")


def test_globs_are_gits_dialect_in_exclude_and_per_file_ignores(tmp_path):
    # One dialect for both keys: `*` stays in a folder, `**` crosses folders.
    write(tmp_path / "pyproject.toml",
          '[tool.autodetach]\nexclude = ["src/*/gen.py"]\n'
          '[tool.autodetach.per-file-ignores]\n"pkg/*.py" = ["AD2"]\n"deep/**/x.py" = ["AD2"]\n')
    write(tmp_path / "src" / "a" / "gen.py", BAD)       # excluded
    write(tmp_path / "src" / "a" / "b" / "gen.py", BAD)  # `*` does not cross folders: checked
    write(tmp_path / "pkg" / "m.py", BAD)               # ignored
    write(tmp_path / "pkg" / "sub" / "m.py", BAD)       # checked
    write(tmp_path / "deep" / "a" / "b" / "x.py", BAD)  # ignored through **
    res = run_cli(["--output-format", "concise", "."], cwd=tmp_path)
    assert _codes(res) == ["pkg/sub/m.py", "src/a/b/gen.py"]
