"""Indentation mixing tabs and spaces as Python accepts it and libcst's
tokenizer does not (a helper method indented `\\t    ` in a file of
spaces): the rules read the file through tabmask, positions unchanged, and
no tree fix is written to it."""
import libcst as cst
import pytest

from autodetach import tabmask

from .test_cli import read, run_cli, write

# A trainer whose G loss reuses `real_h`, computed by `self.FE` before
# `self.opt_d.step()` stepped FE: AD108 at the G backward (line 27).
STALE = '''import torch
from torch import nn


class Trainer:
    def __init__(self, G, FE, D, Q):
        self.G, self.FE, self.D, self.Q = G, FE, D, Q
        self.opt_g = torch.optim.Adam(list(G.parameters()) + list(Q.parameters()))
        self.opt_d = torch.optim.Adam(list(FE.parameters()) + list(D.parameters()))

    def noise(self, n):
\t    z = torch.randn(n, 8)
\t    return z

    def train(self, loader):
        for x in loader:
            real_h = self.FE(x)
            fake = self.G(self.noise(x.size(0)))
            d_loss = self.D(real_h).mean() - self.D(self.FE(fake.detach())).mean()
            self.opt_d.zero_grad()
            d_loss.backward(retain_graph=True)
            self.opt_d.step()
            g_loss = -self.D(self.FE(fake)).mean() + self.Q(real_h).pow(2).mean()
            self.opt_g.zero_grad()
            g_loss.backward()
            self.opt_g.step()
'''
STALE_LINE = STALE.splitlines().index("            g_loss.backward()") + 1

# The same trainer with Q's term on a fresh FE forward after the D step.
FRESH = STALE.replace("self.Q(real_h)", "self.Q(self.FE(x))")


def test_python_accepts_the_file_and_libcst_rejects_it():
    compile(STALE, "stale.py", "exec")
    with pytest.raises(cst.ParserSyntaxError):
        cst.parse_module(STALE)


def test_mask_keeps_length_lines_and_blocks():
    masked = tabmask.mask(STALE)
    assert len(masked) == len(STALE) and "\t" not in masked
    assert masked.splitlines()[11] == "     z = torch.randn(n, 8)"
    cst.parse_module(masked)
    assert tabmask.parse(STALE)[0] == masked


def test_tabs_inside_a_line_are_kept():
    text = "def f():\n\tx = 'a\\tb'\t# note\n\treturn x\n"
    assert tabmask.mask(text) == "def f():\n x = 'a\\tb'\t# note\n return x\n"


def test_python_tab_errors_are_not_masked():
    # a tab worth 8 columns and a tab worth 1 disagree: Python's TabError
    text = "if x:\n        a = 1\n\tb = 2\n"
    with pytest.raises(SyntaxError):
        compile(text, "t.py", "exec")
    assert tabmask.parse(text) is None


def test_stale_graph_found_in_a_tab_indented_file_and_left_unfixed(tmp_path):
    p = write(tmp_path / "trainer.py", STALE)
    res = run_cli(["--fix", "--output-format", "concise", "trainer.py"], cwd=tmp_path, select="AD108")
    assert f"trainer.py:{STALE_LINE}:13: AD108" in res.out, res.out
    assert "AD000" not in res.out
    assert read(p) == STALE  # no tree fix is written over masked text


def test_fresh_forward_in_a_tab_indented_file_is_silent(tmp_path):
    write(tmp_path / "trainer.py", FRESH)
    res = run_cli(["--output-format", "concise", "trainer.py"], cwd=tmp_path, select="AD108")
    assert "AD108" not in res.out and "AD000" not in res.out, res.out


def test_a_file_python_rejects_still_reports_ad000(tmp_path):
    write(tmp_path / "bad.py", "import torch\nif x:\n        a = 1\n\tb = torch.zeros(1).backward()\n")
    res = run_cli(["--output-format", "concise", "bad.py"], cwd=tmp_path, select="ALL")
    assert "AD000" in res.out, res.out
