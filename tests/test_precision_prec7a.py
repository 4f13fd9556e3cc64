"""False positives from fresh-2026-11-29 negatives (issue 8): a module's own
detach(), loss helpers that loop over their arguments, accumulators restarted
on a loop's first iteration. Each shape next to the nearest one that must
still be reported."""
import textwrap

import autodetach
from autodetach.analysis.summaries import summarize


def found(src, select="AD1"):
    return sorted((f.code, f.line) for f in autodetach.check_code(textwrap.dedent(src), select=[select]))


MEMORY = """
import torch
from torch_geometric.nn import TGNMemory
memory = TGNMemory(100, 16, 100, 100).to(device)
head = torch.nn.Linear(100, 1)
opt = torch.optim.Adam(set(memory.parameters()) | set(head.parameters()))
def train():
    for batch in loader:
        z, last = memory(batch.n_id)
        head(z).sum().backward()
        opt.step()
        {stmt}
"""


def test_module_detach_method_is_not_a_discarded_tensor_detach():
    assert found(MEMORY.format(stmt="memory.detach()"), "AD110") == []


def test_tensor_detach_statement_still_reported():
    assert found(MEMORY.format(stmt="z.detach()"), "AD110") == [("AD110", 12)]


LOSSES = """
import torch

def disc_loss(real_outputs, fake_outputs):
    loss = 0
    logs = []
    for dr, dg in zip(real_outputs, fake_outputs):
        dr = dr.float(){cut}
        dg = dg.float(){cut}
        part = torch.mean((1 - dr) ** 2) + torch.mean(dg ** 2)
        loss += part
        logs.append(part.item())
    return loss, logs
"""


def test_loop_over_argument_lists_passes_their_graph():
    found_ = summarize(textwrap.dedent(LOSSES.format(cut="")))["disc_loss"]
    assert found_.elems == ("graph", "cut")
    assert found_.arg_flow == ("graph", "graph")


def test_elements_detached_atop_the_loop_still_cut():
    found_ = summarize(textwrap.dedent(LOSSES.format(cut=".detach()")))["disc_loss"]
    assert found_.elems == ("cut", "cut")
    assert found_.arg_flow == ("cut", "cut")


def test_enumerate_and_items_hand_out_the_elements():
    src = """
    import torch
    def total(outs, named):
        loss = 0
        for i, out in enumerate(outs):
            loss += out.mean()
        for key, value in named.items():
            loss += value.detach().mean()
        return loss
    """
    assert summarize(textwrap.dedent(src))["total"].arg_flow == ("graph", "cut")


CHUNKS = """
import torch
cell = torch.nn.GRUCell(3, 5)
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
{init_outer}
for it in range(4):
    {init_inner}
    for k in range(3):
        if {test}:
            h = h.detach()
        h = cell(torch.randn(2, 3), h)
        opt.zero_grad()
        h.pow(2).mean().backward()
        opt.step()
"""


def chunks(init_outer="", init_inner="h = torch.zeros(2, 5)", test="k > 0"):
    return found(CHUNKS.format(init_outer=init_outer, init_inner=init_inner, test=test))


def test_state_cut_on_every_chunk_but_the_first_is_not_reported():
    assert chunks() == []
    assert chunks(test="k != 0") == []
    assert chunks(test="0 < k") == []
    assert chunks(test="k") == []


def test_state_kept_from_the_last_sequence_is_still_reported():
    # h is made once: the first chunk of the next sequence walks the last one's freed graph
    assert chunks(init_outer="h = torch.zeros(2, 5)", init_inner="pass") != []


def test_state_cut_on_the_first_chunk_only_is_still_reported():
    # `k == 0` detaches only the first chunk: the second walks the first one's freed graph
    assert chunks(test="k == 0") != []
    assert chunks(test="not k") != []
