"""Wrong safe fixes the session-37 audit of 227 never-seen repositories found
(audit50), each reproduced in code of our own.

- AD104: `p.grad` after `loss.backward(create_graph=True)` is a graph built
  from the loss. Two losses built from it share that graph, so the first
  one's retain is needed; main dropped it as a safe fix and the fixed program
  raised "Trying to backward through the graph a second time".
- AD203: `loss.data[0].cpu().numpy()` became `loss.item().cpu().numpy()`; a
  float has no `.cpu()`.
- AD101 (unsafe, false): an action drawn by `.sample()` from a distribution
  another method of the class returns, read as carrying the network's graph."""
import subprocess
import sys
import textwrap

import pytest

from autodetach import check_code, fix_code

SECOND_ORDER = textwrap.dedent("""
    import torch
    torch.manual_seed(0)
    a, b = torch.randn(5), torch.randn(5)
    w = torch.randn(5, requires_grad=True)
    u = torch.randn(5, requires_grad=True)
    first = ((b - w * a) ** 2).sum()
    first.backward(create_graph=True)
    w_next = w - 0.1 * w.grad
    u_next = u - 0.1 * w.grad
    left = ((b - w_next * a) ** 2).sum()
    left.backward(retain_graph=True)
    right = ((b - u_next * a) ** 2).sum()
    right.backward()
    print("%.6f" % u.grad.sum().item())
""")


def _codes(src, code):
    return [f for f in check_code(src) if f.code == code]


def test_grad_attr_after_create_graph_keeps_retain():
    assert _codes(SECOND_ORDER, "AD104") == []


def test_grad_attr_after_zero_grad_is_no_graph():
    # the grads emptied before they are read: nothing of the first graph in the two losses,
    # whose retain is then not needed (the control: the reasoning does not keep every retain)
    src = SECOND_ORDER.replace("first.backward(create_graph=True)\n", "first.backward(create_graph=True)\n"
                               "opt = torch.optim.SGD([w, u], lr=0.1)\nopt.zero_grad()\n")
    src = src.replace("0.1 * w.grad", "0.1 * w.detach()")
    assert [f.fix for f in _codes(src, "AD104")] == ["safe"]


@pytest.mark.slow
def test_grad_attr_second_order_runs(tmp_path):
    path = tmp_path / "second.py"
    path.write_text(fix_code(SECOND_ORDER, unsafe=True)[0])
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-400:]


def test_data_index_then_tensor_method_keeps_a_tensor():
    src = textwrap.dedent("""
        import torch.nn.functional as F
        err = F.mse_loss(a, b)
        shown = err.data[0].cpu().numpy()
        print(err.data[0])
    """)
    text = fix_code(src)[0]
    assert "err.detach().cpu().numpy()" in text
    assert "print(err.item())" in text
    assert ".item().cpu()" not in text


def test_real_indexing_then_method_left_alone():
    src = "import torch\nm = torch.randn(3, 4)\nrow = m.data[0].cpu()\n"
    assert _codes(src, "AD203") == []


def test_method_of_unresolved_class_makes_the_drop_unsafe(tmp_path):
    # `net.loss_a(batch)` and `net.loss_b(batch)` of a class imported from code the project cannot
    # resolve (an installed or vendored package): both may read what forward kept on `net`, so the
    # second backward may walk the first's graph; dropping the retain is no longer proven
    (tmp_path / "main.py").write_text(textwrap.dedent("""
        import torch
        from vendored_nets import TwinNet

        net = TwinNet()
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for it in range(3):
            batch = torch.randn(3, 4)
            net(batch)
            first = net.loss_a(batch)
            second = net.loss_b(batch)
            first.backward(retain_graph=True)
            second.backward()
            opt.step()
            opt.zero_grad()
    """))
    from autodetach.engine import Options, check_source
    from autodetach.registry import all_rules

    path = tmp_path / "main.py"
    found = [f for f in check_source(path.read_text(), str(path), all_rules(), Options())[0] if f.code == "AD104"]
    assert [f.fix for f in found] == ["unsafe"]
    assert "`net.loss_a()` returns a graph the analysis cannot see into" in found[0].message


EVALUATED = textwrap.dedent("""
    import torch
    net = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    data = [(torch.randn(8, 4), torch.randn(8, 2)) for _ in range(3)]

    def evaluate(loader, model):
        total = 0.0
        for x, y in loader:
            out = model(x)
            total += torch.mean(torch.abs(y - {read}))
        return total

    best = 1e10
    for epoch in range(3):
        for x, y in data:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
        best = min(evaluate(data, net), best)
""")


def test_evaluation_of_numbers_read_off_the_outputs_keeps_no_graph():
    # `evaluate(loader, model)` runs the trained network but returns what it reads through `.data`:
    # main took its result for the network's graph and gave `best` a SAFE `.detach()`
    assert _codes(EVALUATED.replace("{read}", "out.data"), "AD101") == []


def test_evaluation_of_the_outputs_themselves_is_still_reported():
    assert [f.code for f in _codes(EVALUATED.replace("{read}", "out"), "AD101")] == ["AD101"]


SAMPLED = textwrap.dedent("""
    import torch
    import torch.nn as nn
    torch.manual_seed(0)

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.mu = nn.Linear(3, 1)

        def forward(self, x):
            return torch.tanh(self.mu(x))

    def helper_dist(net, s):
        return torch.distributions.Normal(net(s).squeeze(), 0.5)

    class Actor:
        def __init__(self):
            self.net = Head()
            self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

        def dist_of(self, s):
            d = torch.distributions.Normal(self.net(s).squeeze(), 0.5)
            return d

        def act(self, s):
            d = DIST
            self.action = d.DRAW()
            return self.action

        def learn(self, s, a):
            loss = -self.dist_of(s).log_prob(a).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

    actor = Actor()
    state = torch.randn(1, 3)
    for step in range(4):
        a = actor.act(state)
        state = torch.randn(1, 3) + a
        actor.learn(state, a)
""")


@pytest.mark.parametrize("dist", ["self.dist_of(s)", "helper_dist(self.net, s)"])
def test_sample_of_distribution_from_own_method_keeps_no_graph(dist):
    # ClownW's continuous actor-critic: `Normal(...)` returned by a method, then `.sample()`d
    src = SAMPLED.replace("DIST", dist).replace("DRAW", "sample")
    assert _codes(src, "AD101") == []


def test_rsample_of_distribution_from_own_method_keeps_graph():
    # the control: `rsample` keeps the graph, and the program raises on the second step
    src = SAMPLED.replace("DIST", "self.dist_of(s)").replace("DRAW", "rsample")
    assert _codes(src, "AD101") != []
