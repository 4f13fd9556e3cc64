"""AD104 shapes from real code (session 33, issue 8): a loop whose body stores
into an entry its index picks (`norms[idx] = ...`, MetaBalance), a later
gradient after the loop on a graph handed in (a Neumann log-det estimator), a
graph kept on an object the caller handed in (`ctx.g = g` in an autograd
Function), and returned losses a caller reads only through `.data` (a DDPG
agent)."""
import textwrap

import libcst as cst

from autodetach.analysis.last_iteration import _assigned, _changed
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _ad104(src, path="case.py"):
    findings, _, _ = check_source(textwrap.dedent(src), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


MOVING_NORMS = """
import torch
from torch import nn

trunk = nn.Linear(4, 4)
heads = nn.ModuleList([nn.Linear(4, 1) for _ in range(3)])
opt = torch.optim.SGD([*trunk.parameters(), *heads.parameters()], lr=0.1)
norms = [0.0, 0.0, 0.0]
for step in range(3):
    h = trunk(torch.randn(2, 4))
    losses = [head(h).mean() for head in heads]
    opt.zero_grad()
    for idx, loss in enumerate(losses):
        loss.backward(retain_graph=True)
        norms[idx] = 0.9 * norms[idx] + trunk.weight.grad.norm().item()
    opt.step()
"""


def test_entry_store_by_the_index_does_not_change_the_index(tmp_path):
    found = _ad104(MOVING_NORMS, tmp_path / "case.py")
    assert [f.line for f in found] == [14]
    assert "on the last iteration" in found[0].message and "`idx < len(losses) - 1`" in found[0].message


def test_later_backward_after_the_loop_keeps_the_last_retain(tmp_path):
    src = MOVING_NORMS.replace("    opt.step()", "    sum(losses).backward()\n    opt.step()")
    assert src != MOVING_NORMS
    assert _ad104(src, tmp_path / "case.py") == []


def test_assigned_targets():
    def assigned(code):
        return _assigned(cst.parse_statement(code).body[0].targets[0].target)

    assert assigned("gp.norms[idx] = v") == {"gp.norms"}
    assert assigned("a, (b, c[i]) = v") == {"a", "b", "c"}
    assert assigned("x.y = v") == {"x.y"}
    loop = cst.parse_statement("for i in range(n):\n    i = i + 1\n")
    assert "i" in _changed(loop)  # a real rebinding of the index still counts


NEUMANN = """
import torch


def neumann_logdet(g, x, v, n_terms):
    vjp = v
    total = v
    for k in range(1, n_terms + 1):
        vjp = torch.autograd.grad(g, x, vjp, retain_graph=True)[0]
        total = total + (-1) ** k * vjp
    vjp_jac = torch.autograd.grad(g, x, total, create_graph=True)[0]
    return (vjp_jac * v).sum(1)
"""


def test_later_grad_of_the_handed_graph_keeps_the_last_retain(tmp_path):
    assert _ad104(NEUMANN, tmp_path / "case.py") == []


def test_later_grad_of_a_cut_copy_leaves_the_last_retain_unneeded(tmp_path):
    src = NEUMANN.replace("torch.autograd.grad(g, x, total, create_graph=True)",
                          "torch.autograd.grad(g.detach() * 0 + x.sum(), x, total, create_graph=True)")
    assert src != NEUMANN
    found = _ad104(src, tmp_path / "case.py")
    assert [(f.line, f.fix) for f in found] == [(9, "unsafe")]


GRADNORM = """
import torch


def gradnorm(losses, weights, shared, initial):
    total = 0
    for loss_i, w_i in zip(losses, weights):
        total = total + loss_i * w_i
    total.backward(retain_graph=True)
    norms, ratios = [], []
    for i in range(len(losses)):
        g = torch.autograd.grad(losses[i], shared, retain_graph=True)
        norms.append((weights[i] * g[0]).norm())
        ratios.append(losses[i].item() / initial[i])
    norms = torch.stack(norms)
    target = norms.detach().mean() * sum(ratios) / len(ratios)
    gn_loss = (norms - target).abs().sum()
    grads = torch.autograd.grad(gn_loss, list(weights))
    for w_i, g_w in zip(weights, grads):
        w_i.grad = g_w
"""


def test_gradients_without_create_graph_and_item_reads_carry_no_graph(tmp_path):
    # GradNorm: the loss after the loop reads the task losses only through gradients taken
    # without create_graph and `.item()`: the last task's retain stays reported (unsafe: handed in)
    found = _ad104(GRADNORM, tmp_path / "case.py")
    assert [(f.line, f.fix) for f in found] == [(12, "unsafe")]


def test_gradient_with_create_graph_reaches_the_handed_graph(tmp_path):
    src = GRADNORM.replace("g = torch.autograd.grad(losses[i], shared, retain_graph=True)",
                           "g = torch.autograd.grad(losses[i], shared, retain_graph=True, create_graph=True)")
    assert src != GRADNORM
    assert _ad104(src, tmp_path / "case.py") == []


def test_a_later_pass_of_an_outer_loop_is_not_a_later_grad(tmp_path):
    # the script's loop inlines gradnorm: the next step's `total.backward()` reads new losses
    src = GRADNORM + """

trunk = torch.nn.Linear(4, 4)
heads = torch.nn.ModuleList([torch.nn.Linear(4, 1) for _ in range(2)])
weights = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(1)) for _ in range(2)])
for step in range(3):
    h = torch.tanh(trunk(torch.randn(2, 4)))
    losses = [head(h).mean() for head in heads]
    gradnorm(losses, weights, trunk.weight, [1.0, 1.0])
"""
    found = _ad104(src, tmp_path / "case.py")
    assert [f.line for f in found] == [12]


CTX = """
import torch


class Estimator(torch.autograd.Function):
    @staticmethod
    def forward(ctx, penalty_fn, block, x, *params):
        with torch.enable_grad():
            x = x.detach().requires_grad_(True)
            g = block(x)
            ctx.g = g
            ctx.x = x
            penalty = penalty_fn(g, x)
            grad_x, *grad_params = torch.autograd.grad(penalty, (x,) + params, retain_graph=True)
            ctx.save_for_backward(grad_x, *grad_params)
        return g.detach(), penalty.detach()

    @staticmethod
    def backward(ctx, grad_g, grad_penalty):
        with torch.enable_grad():
            return torch.autograd.grad(ctx.g, [ctx.x], grad_g)


def wrapper(penalty_fn, block, x):
    return Estimator.apply(penalty_fn, block, x, *block.parameters())
"""


def test_graph_kept_on_an_object_handed_in_keeps_the_retain(tmp_path):
    assert _ad104(CTX, tmp_path / "case.py") == []


def test_cut_copies_on_the_object_do_not_keep_the_graph(tmp_path):
    src = CTX.replace("ctx.g = g\n", "ctx.g = g.detach()\n")
    assert src != CTX
    found = _ad104(src, tmp_path / "case.py")
    assert [(f.line, f.fix) for f in found] == [(14, "unsafe")]


AGENT = """
import torch
from torch import nn


class Agent(object):
    def __init__(self):
        self.actor = nn.Linear(4, 2)
        self.critic = nn.Linear(6, 1)
        self.actor_optim = torch.optim.Adam(self.actor.parameters())
        self.critic_optim = torch.optim.Adam(self.critic.parameters())

    def update_policy(self, state, action, target):
        value_loss = (self.critic(torch.cat([state, action], 1)) - target).pow(2).mean()
        self.critic.zero_grad()
        value_loss.backward(retain_graph=True)
        self.critic_optim.step()
        policy_loss = -self.critic(torch.cat([state, self.actor(state)], 1)).mean()
        self.actor.zero_grad()
        policy_loss.backward(retain_graph=True)
        self.actor_optim.step()
        return -policy_loss, value_loss
"""

LOOP = """
import torch


def run(agent, steps):
    tot = 0.0
    for step in range(steps):
        q, value_loss = agent.update_policy(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1))
        tot += q.data.cpu().numpy() + value_loss.data.cpu().numpy()
    return tot
"""


def test_returned_losses_read_through_data_are_dropped(tmp_path):
    (tmp_path / "loop.py").write_text(textwrap.dedent(LOOP))
    path = tmp_path / "agent.py"
    path.write_text(textwrap.dedent(AGENT))
    found = _ad104(AGENT, path)
    assert [(f.line, f.fix) for f in found] == [(16, "unsafe"), (20, "unsafe")]
    assert "drop the result" in found[0].message


def test_returned_loss_backwarded_by_the_caller_keeps_the_retain(tmp_path):
    loop = LOOP.replace("        tot +=", "        value_loss.backward()\n        tot +=")
    assert loop != LOOP
    (tmp_path / "loop.py").write_text(textwrap.dedent(loop))
    path = tmp_path / "agent.py"
    path.write_text(textwrap.dedent(AGENT))
    assert _ad104(AGENT, path) == []


def test_a_data_store_is_not_a_read():
    import ast

    from autodetach.analysis.dropped_results import _data_read

    tree = ast.parse("x.data = y\nz = x.data\n")
    store, load = tree.body[0].targets[0], tree.body[1].value
    assert not _data_read(store, store.value) and _data_read(load, load.value)


NB_MODEL = "import torch\nmodel = torch.nn.Linear(2, 1)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)"
NB_CHECK = ("loss = model(torch.randn(4, 2)).pow(2).mean()\n"
            "grads = torch.autograd.grad(loss, model.parameters(), retain_graph=True)\n"
            "assert all(g is not None for g in grads)")
NB_TRAIN = ("for step in range(3):\n    loss = model(torch.randn(4, 2)).pow(2).mean()\n    opt.zero_grad()\n"
            "    loss.backward()\n    opt.step()")


def _notebook(path, cells):
    import pytest

    nbformat = pytest.importorskip("nbformat")
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook()
    nb.cells = [new_code_cell(c) for c in cells]
    nbformat.write(nb, str(path))
    return path.read_bytes()


def _notebook_findings(path, data, opts=None):
    from autodetach import notebook

    return notebook.process(data, str(path), all_rules(), opts or Options())


def test_template_notebook_checks_the_cells_that_parse(tmp_path):
    # a course template: a cell left for the student (`<YOUR CODE>`) does not parse; the other
    # cells are checked, and every fix is unsafe (what the left-out cell does is not seen)
    path = tmp_path / "t.ipynb"
    data = _notebook(path, [NB_MODEL, "hidden = <YOUR CODE>", NB_CHECK, NB_TRAIN])
    res = _notebook_findings(path, data)
    got = sorted((f.code, f.cell, f.line, f.fix) for f in res.findings)
    assert ("AD000", 2, 1, "none") in got and ("AD104", 3, 2, "unsafe") in got, got
    ad104 = [f for f in res.findings if f.code == "AD104"][0]
    assert "left out" in ad104.message and "inferred" in ad104.message
    whole = tmp_path / "w.ipynb"
    res = _notebook_findings(whole, _notebook(whole, [NB_MODEL, "hidden = 1", NB_CHECK, NB_TRAIN]))
    assert [(f.code, f.cell, f.line, f.fix) for f in res.findings] == [("AD104", 3, 2, "safe")]


def test_template_notebook_fixes_only_with_unsafe_fixes_and_never_the_broken_cell(tmp_path):
    path = tmp_path / "t.ipynb"
    data = _notebook(path, [NB_MODEL, "hidden = <YOUR CODE>", NB_CHECK, NB_TRAIN])
    assert _notebook_findings(path, data, Options(fix=True)).new_source is None
    res = _notebook_findings(path, data, Options(fix=True, unsafe=True))
    import json

    cells = [c["source"] for c in json.loads(res.new_source)["cells"]]
    cells = ["".join(c) if isinstance(c, list) else c for c in cells]
    assert cells[1] == "hidden = <YOUR CODE>"
    assert "retain_graph" not in cells[2] and cells[0] == NB_MODEL and cells[3] == NB_TRAIN


STYLE = """
import torch
from torch import nn

features = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU())
for param in features.parameters():
    param.requires_grad_(False)


def get_features(x, model):
    out = {}
    for i, layer in enumerate(model.children()):
        x = layer(x)
        out[str(i)] = x
    return out


target = get_features(torch.rand(1, 3, 8, 8), features)
image = torch.rand(1, 3, 8, 8).requires_grad_(True)
opt = torch.optim.Adam([image], lr=0.01)
for epoch in range(3):
    opt.zero_grad()
    loss = (get_features(image, features)["1"] - target["1"]).pow(2).mean()
    loss.backward(retain_graph=True)
    opt.step()
"""


def test_targets_of_a_network_frozen_first_carry_no_graph(tmp_path):
    found = _ad104(STYLE, tmp_path / "case.py")
    assert [(f.line, f.fix) for f in found] == [(24, "unsafe")]
    assert "`target` is computed before the loop from `features`" in found[0].message


def test_targets_computed_before_the_freeze_keep_the_retain(tmp_path):
    freeze = "for param in features.parameters():\n    param.requires_grad_(False)\n"
    src = STYLE.replace(freeze, "").replace("image = torch.rand", freeze + "image = torch.rand")
    assert src.count("requires_grad_(False)") == 1 and src.index("requires_grad_(False)") > src.index("target =")
    assert _ad104(src, tmp_path / "case.py") == []


def test_a_network_trained_or_switched_on_again_is_not_frozen(tmp_path):
    on = STYLE.replace("image = torch.rand", "features.requires_grad_(True)\nimage = torch.rand")
    assert _ad104(on, tmp_path / "case.py") == []
    trained = STYLE.replace("opt = torch.optim.Adam([image], lr=0.01)",
                            "opt = torch.optim.Adam([image, *features.parameters()], lr=0.01)")
    assert trained != STYLE
    assert _ad104(trained, tmp_path / "case.py") == []


RETURNS_SUM = """
import torch


def task_grads(losses, shared):
    norms = []
    for i in range(len(losses)):
        norms.append(torch.autograd.grad(losses[i], shared, retain_graph=True)[0].norm().item())
    return sum(loss / n for loss, n in zip(losses, norms))
"""


def test_a_returned_value_built_from_the_handed_losses_keeps_the_last_retain(tmp_path):
    # the caller gets `sum(losses)` and may backward it: the retain keeps that graph walkable
    assert _ad104(RETURNS_SUM, tmp_path / "case.py") == []
    src = RETURNS_SUM.replace("return sum(loss / n for loss, n in zip(losses, norms))", "return norms")
    found = _ad104(src, tmp_path / "case.py")
    assert [(f.line, f.fix) for f in found] == [(8, "unsafe")]


def test_ad107_leaves_targets_of_a_frozen_network_alone(tmp_path):
    src = STYLE.replace("loss.backward(retain_graph=True)", "loss.backward()")
    findings, _, _ = check_source(textwrap.dedent(src), str(tmp_path / "case.py"), all_rules(), Options())
    assert [f for f in findings if f.code in ("AD104", "AD107")] == []
    freeze = "for param in features.parameters():\n    param.requires_grad_(False)\n"
    late = src.replace(freeze, "").replace("image = torch.rand", freeze + "image = torch.rand")
    findings, _, _ = check_source(textwrap.dedent(late), str(tmp_path / "case.py"), all_rules(), Options())
    assert [f.code for f in findings if f.code == "AD107"] == ["AD107"]  # computed before the freeze: a graph
