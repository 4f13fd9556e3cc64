"""The flake8 plugin, through the real flake8 in a subprocess."""
import os
import subprocess
import sys
from importlib.metadata import entry_points

import pytest

pytest.importorskip("flake8")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BAD = ("import torch\nfrom torch.autograd import Variable\n\nx = torch.ones(2, requires_grad=True)\n"
       "y = Variable(x.data)\nz = Variable(x.data)  # noqa: AD201\n")


def _plugin_path(tmp_path) -> str:
    """What PYTHONPATH needs for flake8 to find the AD plugin of this
    checkout: nothing more when the installed autodetach declares it, else a
    stand-in distribution that declares this checkout's entry point."""
    if any(ep.name == "AD" and ep.value == "autodetach.flake8_plugin:Plugin"
           for ep in entry_points(group="flake8.extension")):
        return ROOT
    info = tmp_path / "site" / "autodetach_checkout-0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: autodetach-checkout\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[flake8.extension]\nAD = autodetach.flake8_plugin:Plugin\n")
    return os.pathsep.join([str(tmp_path / "site"), ROOT])


def flake8(tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=_plugin_path(tmp_path))
    return subprocess.run([sys.executable, "-m", "flake8", "--isolated", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow  # flake8 in a subprocess: about 3 s
def test_flake8_reports_ad_codes(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "clean.py").write_text("import os\n\nprint(os.sep)\n")
    r = flake8(tmp_path, "--select", "AD", "bad.py", "clean.py")
    assert r.returncode == 1, r.stderr
    # flake8's columns are 1-based in its output; the noqa'd line is not shown.
    assert r.stdout.splitlines() == [
        "bad.py:5:5: AD201 `Variable(x.data)` re-wraps data to cut the graph; use `x.detach()`"], r.stdout + r.stderr


@pytest.mark.slow
def test_flake8_clean_file_and_other_codes(tmp_path):
    (tmp_path / "clean.py").write_text("import torch\n\nx = torch.ones(2).detach()\nprint(x)\n")
    r = flake8(tmp_path, "--select", "AD", "clean.py")
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr
    (tmp_path / "bad.py").write_text(BAD)
    r = flake8(tmp_path, "--select", "AD,F", "--extend-ignore", "AD201", "bad.py")
    assert "AD201" not in r.stdout and r.returncode == 0, r.stdout + r.stderr


def test_plugin_prefilter_and_syntax_errors():
    from autodetach.flake8_plugin import Plugin

    assert list(Plugin(None, "a.py", ["import os\n", "print(os.sep)\n"]).run()) == []
    # A syntax error is flake8's own E999: the plugin adds nothing.
    assert list(Plugin(None, "a.py", ["y = Variable(x.data\n"]).run()) == []
    found = [r[:3] for r in Plugin(None, "a.py", BAD.splitlines(keepends=True)).run()]
    # The engine honours `# noqa: AD201` itself (as flake8 would). Columns are 0-based.
    assert [(line, col, msg.split()[0]) for line, col, msg in found] == [(5, 4, "AD201")]


def test_torch_free_files_are_not_parsed():
    from autodetach.flake8_plugin import NEED_TORCH, rules_for
    from autodetach.registry import by_code

    plain = "import json\n\ndef solve(a, b):\n    return json.load(a) / b.sum()\n"
    assert rules_for(plain) == []  # "/", ".sum(" and ".load(" admit AD212 and AD213 once torch is named
    assert {r.code for r in rules_for("import torch\n" + plain)} >= {"AD212", "AD213"}
    assert "AD211" in {r.code for r in rules_for("import torch\n" + plain.replace("b)", "b.solve(a))"))}
    # The gate drops nothing those rules document: every reported case names torch.
    for code in NEED_TORCH:
        assert all("torch" in case.code for case in by_code()[code].INVALID), code
    assert rules_for("async def f():\n    await g()\n") == []
    assert all(r.code == "AD209" for r in rules_for("x.cuda(async=True)\n"))
    from autodetach.flake8_plugin import _ASYNC_KWARG

    assert all(_ASYNC_KWARG.search(case.code) for case in by_code()["AD209"].INVALID)
