"""Issue 13, bad input not covered elsewhere: a 50k-line file, binary content
in a .py, Python 3.12+ syntax (match, PEP 695, nested f-strings)."""
import os
import random
import sys

import libcst as cst
import pytest

from .test_cli import BAD, FIXED, read, run_cli, write


@pytest.mark.slow
def test_fifty_thousand_lines_fixed_whole_and_idempotent(tmp_path):
    block = "".join(f"\n\ndef step{{i}}_{k}(h, w):\n    y = h * w + {k}\n    return y.sum()\n" for k in range(9))
    blocks = [block.replace("{i}", str(i)) + f"\n\ndef cut{i}(h):\n    return Variable(h.data)\n"
              for i in range(1100)]
    src = "import torch\nfrom torch.autograd import Variable\n" + "".join(blocks)
    assert src.count("\n") >= 50_000
    p = write(tmp_path / "big.py", src)
    res = run_cli(["--fix", "big.py"], cwd=tmp_path)
    assert res.code == 0, res.err
    new = read(p)
    assert new == src.replace("Variable(h.data)", "h.detach()")
    compile(new, "big.py", "exec")
    again = run_cli(["--fix", "big.py"], cwd=tmp_path)
    assert again.code == 0 and read(p) == new


def test_binary_content_in_a_py_file_is_one_line_and_untouched(tmp_path):
    rng = random.Random(13)
    # A PNG header, the token the pre-filter looks for, then noise with NULs.
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR Variable(h.data)\n" + bytes(rng.randrange(256) for _ in range(4000))
    (tmp_path / "image.py").write_bytes(data)
    good = write(tmp_path / "good.py", BAD)
    res = run_cli(["--fix", "--output-format", "concise", "."], cwd=tmp_path)
    assert (tmp_path / "image.py").read_bytes() == data
    assert read(good) == FIXED  # the run went on
    mine = [ln for ln in res.lines if ln.startswith("image.py")]
    assert len(mine) == 1 and "AD000 cannot decode as utf-8: byte 0x89" in mine[0], res.out
    assert res.err == "" and res.code == 1


NEW_SYNTAX = {
    "match.py": ("from torch.autograd import Variable\n\n\ndef g(cmd, h):\n    match cmd:\n"
                 "        case {\"x\": [x, *_]} if x:\n            return Variable(h.data)\n"
                 "        case Point(x=0) | None:\n            return h\n"),
    "pep695.py": ("from torch.autograd import Variable\n\ntype Vec[T] = list[T]\n\n\n"
                  "def cut[T: (int, float)](h: T) -> T:\n    return Variable(h.data)\n\n\n"
                  "class Box[T]:\n    def get(self, h: T) -> T:\n        return Variable(h.data)\n"),
    "fstrings.py": ("from torch.autograd import Variable\n\n\ndef g(d, h):\n"
                    "    print(f\"{d[\"k\"]:{d[\"w\"]}} {f\"{d[\"z\"]!r}\"}\")\n    return Variable(h.data)\n"),
}


@pytest.mark.parametrize("name", sorted(NEW_SYNTAX))
def test_python_312_syntax_is_fixed_and_stays_whole(tmp_path, name):
    src = NEW_SYNTAX[name]
    p = write(tmp_path / name, src)
    res = run_cli(["--fix", name], cwd=tmp_path)
    assert res.code == 0, (res.out, res.err)
    new = read(p)
    # Only the finding's line changed; the new syntax is left as it was.
    assert new == src.replace("Variable(h.data)", "h.detach()")
    cst.parse_module(new)
    if sys.version_info >= (3, 12):
        compile(new, name, "exec")
    assert run_cli(["--fix", name], cwd=tmp_path).code == 0 and read(p) == new
    assert [n for n in os.listdir(tmp_path) if n != ".autodetach_cache"] == [name]

