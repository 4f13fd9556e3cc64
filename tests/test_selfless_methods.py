"""A module's method that never reads `self` (`features_lengths(self, n)`:
arithmetic on its argument) returns none of the module's graph, and neither
does a method that hands its work to such a method of its submodules, also
inside a dict comprehension over `range(...)`. Summaries say so with
`self_flow`; a method that reads its weights still says it may carry them."""
import textwrap

from autodetach.analysis.summaries import summarize

SRC = """
import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(1, 2, 3)

    def lengths(self, n):
        return [n, torch.div(n + 3, 4, rounding_mode="floor")]

    def scaled(self, x):
        return self.conv(x) * 2

class Multi(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.blocks = nn.ModuleDict({str(i): Block() for i in range(k)})

    def lengths(self, n):
        return {str(i): self.blocks[str(i)].lengths(torch.div(n, 2 ** i)) for i in range(self.k)}

    def scaled(self, x):
        return {str(i): self.blocks[str(i)].scaled(x) for i in range(self.k)}
"""


def flows():
    s = summarize(textwrap.dedent(SRC))
    return {k: s[k].self_flow for k in ("Block.lengths", "Multi.lengths", "Block.scaled", "Multi.scaled")}


def test_selfless_methods_and_their_delegates_carry_no_module_graph():
    got = flows()
    assert got["Block.lengths"] == "const"
    assert got["Multi.lengths"] in ("const", "cut")


def test_methods_that_read_weights_are_not_taken_for_selfless():
    got = flows()
    assert got["Block.scaled"] not in ("const", "cut")
    assert got["Multi.scaled"] not in ("const", "cut")
