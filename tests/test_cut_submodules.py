"""AD109 from a module class alone: a layer that the class hands to an
optimizer in a parameter group, and that its forward cuts from every output
(A-GCN: `adj = gen_adj(self.non_local(inp)).detach()`)."""
import textwrap

import libcst as cst

from autodetach.analysis.cut_submodules import cut_submodules
from autodetach.context import FileContext
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

MODEL = """
import torch
from torch import nn


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.non_local = nn.Linear(4, 4)
        self.gc = nn.Linear(4, 4)

    def forward(self, inp):
        adj = self.non_local(inp)
        adj = torch.softmax(adj, 1){cut}
        x = self.gc(adj @ inp)
        return {ret}

    def get_config_optim(self, lr):
        return [
            {group},
            {{"params": self.gc.parameters(), "lr": lr}},
        ]
{extra}
"""

GROUP = '{"params": self.non_local.parameters(), "lr": lr}'


def _found(cut=".detach()", ret="x, adj", group=GROUP, extra=""):
    rules = [r for r in all_rules() if r.code == "AD109"]
    src = textwrap.dedent(MODEL).format(cut=cut, ret=ret, group=group, extra=extra)
    found, _, _ = check_source(src, "models.py", rules, Options())
    return [(f.code, f.line, f.fix) for f in found]


def test_a_layer_cut_from_every_output_of_forward():
    assert _found() == [("AD109", 14, "none")]  # report only
    # `.data` cuts too (the pre-filter admits a file with a `.detach()` or a loss word only)
    module = cst.parse_module(textwrap.dedent(MODEL).format(cut=".data", ret="x, adj", group=GROUP, extra=""))
    found = cut_submodules(FileContext(module, "models.py").analysis)
    assert [(f.submodule, f.method) for f in found] == [("self.non_local", "get_config_optim")]
    assert _found(group="dict(params=self.non_local.parameters(), lr=lr)") == [("AD109", 14, "none")]


def test_a_live_path_or_no_group_leaves_it_alone():
    assert _found(cut="") == []
    assert _found(ret="x, adj, self.non_local(inp)") == []  # its output also leaves uncut
    assert _found(group='{"params": self.gc.parameters()}') == []  # not handed to an optimizer: fixed on purpose


def test_a_layer_another_method_runs_is_left_alone():
    extra = """
    def embed(self, inp):
        return self.non_local(inp)
"""
    assert _found(extra=textwrap.indent(textwrap.dedent(extra), "    ")) == []
