"""A helper that writes into tensors its caller hands it (`cur[mask] = dist[mask]`
in `_keep(dist, cur)`): the write changes the caller's tensor in place, so a
tensor the caller keeps across iterations hangs from every step's graph
(advertorch EAD's `_update_if_smaller_dist_succeed`; passed_buffers.py)."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

SRC = """
import torch

net = torch.nn.Linear(3, 3)


def keep(dist, cur):
    mask = dist < cur
    cur[mask] = {value}


class Attack:
    def _keep(self, dist, cur):
        mask = dist < cur
        cur[mask] = {value}

    def run(self, x, steps):
        w = torch.nn.Parameter(x.clone())
        opt = torch.optim.SGD([w], lr=0.1)
        {made}
        for _ in range(steps):
            opt.zero_grad()
            cost = (w - x).pow(2).sum() + net(w).logsumexp(dim=1).sum()
            cost.backward()
            opt.step()
            adv = w.clamp(0, 1)
            dist = (adv - x).pow(2).sum(dim=1)
            {again}
            {call}
        return cur.sum().item()
"""


def _found(tmp_path, value="dist[mask]", call="self._keep(dist, cur)", inside=False):
    made = "cur = torch.full((len(x),), 1e9)"
    src = textwrap.dedent(SRC).format(value=value, call=call, made="" if inside else made,
                                      again=made if inside else "")
    path = tmp_path / "attack.py"
    path.write_text(src)
    found, _, _ = check_source(src, str(path), all_rules(), Options())
    return [f for f in found if f.code.startswith("AD1")]


@pytest.mark.parametrize("call", ["self._keep(dist, cur)", "keep(dist, cur)", "self._keep(dist, cur=cur)"])
def test_a_buffer_kept_across_steps_written_by_a_helper_is_reported(tmp_path, call):
    found = _found(tmp_path, call=call)
    assert [(f.code, f.line) for f in found] in ([("AD101", 9)], [("AD101", 15)])
    assert call.startswith("keep(") == (found[0].line == 9)
    assert found[0].fix == "safe"


@pytest.mark.parametrize("value", ["dist[mask].detach()", "dist[mask].item()"])
def test_a_helper_that_cuts_what_it_writes_is_left_alone(tmp_path, value):
    assert _found(tmp_path, value=value) == []


def test_a_buffer_made_anew_at_every_step_is_left_alone(tmp_path):
    assert _found(tmp_path, inside=True) == []


def test_a_helper_given_no_graph_is_left_alone(tmp_path):
    assert _found(tmp_path, call="self._keep(dist.detach(), cur)") == []
