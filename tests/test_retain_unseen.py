"""AD104 when the losses hang from graphs the walk cannot see (a model built
by a class of another file): a retain is not proven unneeded when a later
loss reads the same values (analysis/retained.py, _unseen_origins)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

SHARED = """
import torch
import torch.nn.functional as F
from model import Net

model = Net()
opt, opt_D = model.get_optimizer(0.01)
for epoch in range(3):
    s_feature, s_score = model(torch.randn(8, 4))
    t_feature, t_score = model(torch.randn(8, 4))
    s_logit, t_logit = model.forward_D(s_feature), model.forward_D(t_feature)
    D_loss = F.softplus(-s_logit).mean() + F.softplus(t_logit).mean()
    F_loss = F.cross_entropy(s_score, torch.zeros(8, dtype=torch.long)) + F.softplus(-t_logit).mean()
    opt_D.zero_grad()
    opt.zero_grad()
    D_loss.backward(retain_graph=True)
    F_loss.backward()
    opt_D.step()
    opt.step()
"""


def _ad104(src):
    findings, _, _ = check_source(textwrap.dedent(src), "case.py", all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_losses_reading_one_unseen_value_make_the_fix_unsafe():
    # dropping this retain breaks the run: F_loss walks the D graph through t_logit (safe before)
    found = _ad104(SHARED)
    assert [(f.line, f.fix) for f in found] == [(16, "unsafe")]
    assert "both read `t_logit`" in found[0].message


def test_losses_of_unseen_graphs_reading_different_names_are_unsafe_too():
    # s_logit and s_score come from one model call: the names differ, the graph is shared
    src = SHARED.replace("+ F.softplus(-t_logit).mean()", "+ s_score.pow(2).mean()")
    assert src != SHARED
    found = _ad104(src)
    assert [(f.line, f.fix) for f in found] == [(16, "unsafe")]


def test_a_later_loss_with_a_seen_graph_keeps_the_safe_fix():
    src = """
        import torch
        import torch.nn.functional as F
        from model import Net

        model, head = Net(), torch.nn.Linear(4, 1)
        for epoch in range(3):
            x = torch.randn(8, 4)
            d_loss = model(x).mean()
            d_loss.backward(retain_graph=True)
            h_loss = head(x).pow(2).mean()
            h_loss.backward()
        """
    found = _ad104(src)
    assert [(f.line, f.fix) for f in found] == [(10, "safe")]


SKIPPED_ARM = """
import torch
from model import load

adv, opt_g, opt_d = load()
for step in range(6):
    out = adv(torch.randn(4, 6)) if step % 3 else None
    if out is not None:
        d_loss, g_loss = out
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        opt_d.zero_grad()
        d_loss.backward(retain_graph=True)
        opt_d.step()
    else:
        d_loss, g_loss = 0, 0
    print(float(d_loss), float(g_loss))
"""


def test_a_loss_also_bound_to_zero_is_still_the_one_backwarded():
    # `d_loss = 0` in the skipping arm is never backwarded (a number has no backward): the
    # unpacking is what the backward proves a graph in; the next iteration's losses are unseen too
    found = _ad104(SKIPPED_ARM)
    assert [(f.line, f.fix) for f in found] == [(14, "unsafe")]
    assert "both built from values that carry no graph" in found[0].message


def test_a_later_loss_on_a_sibling_of_the_unpacking_keeps_the_retain():
    # `d_loss, fake = out`, then a generator loss on `fake` in the same iteration: one unseen call
    # returned both, and the critic's loss may run through the generator's graph
    src = SKIPPED_ARM.replace("d_loss, g_loss = out", "d_loss, fake = out").replace(
        "        opt_g.zero_grad()\n        g_loss.backward()\n        opt_g.step()\n", "").replace(
        "        opt_d.step()\n", "        opt_d.step()\n        g_loss = adv.generator_loss(fake)\n"
        "        opt_g.zero_grad()\n        g_loss.backward()\n        opt_g.step()\n")
    assert "generator_loss" in src
    assert _ad104(src) == []
    assert _ad104(src.replace("        else:\n            d_loss, g_loss = 0, 0\n", "").replace(
        "    print(float(d_loss), float(g_loss))\n", "")) == []
