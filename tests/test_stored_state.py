"""Summaries of what a method passes from each argument and keeps on
`self` (analysis.summaries arg_flow / stores_graph), and AD104 across
methods and files (analysis.stored_state)."""
import textwrap

from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

LOSSES = textwrap.dedent("""
    import torch

    class DiscLoss:
        def get_loss(self, net, fake, real):
            self.pred_fake = net(fake.detach())
            self.loss = self.crit(self.pred_fake, torch.zeros_like(self.pred_fake)) + self.crit(net(real), 1)
            return self.loss

        def __call__(self, net, fake, real):
            return self.get_loss(net, fake, real)

    class DiscLossLS(DiscLoss):
        def get_loss(self, net, fake, real):
            return DiscLoss.get_loss(self, net, fake, real)

    class Plain:
        def get_loss(self, net, fake, real):
            return self.crit(net(fake), net(real))
""")


def test_arg_flow_follows_cuts_self_state_and_delegation():
    table = summarize(LOSSES)
    assert table["DiscLoss.get_loss"].arg_flow == ("graph", "cut", "graph")
    assert table["DiscLoss.__call__"].arg_flow[1] in ("cut", "const")
    assert table["DiscLossLS.get_loss"].arg_flow[1] in ("cut", "const")
    assert table["DiscLossLS.get_loss"].arg_flow[2] == "graph"
    assert table["Plain.get_loss"].arg_flow == ("graph", "graph", "graph")


def test_delegations_between_methods_are_walked_once_each(monkeypatch):
    # torch/_dynamo/variables/tensor.py: methods that hand their arguments to
    # each other made the per-argument walk exponential (minutes per file)
    from autodetach.analysis import summaries

    methods = ["class Chain:"]
    for i in range(12):
        nxt = f"self.m{i + 1}" if i < 11 else "torch.relu"
        methods.append(f"    def m{i}(self, a, b, c):\n"
                       f"        x = {nxt}(a, b, c) if i else {nxt}(b, c, a)\n"
                       f"        return {nxt}(x, a, b) + {nxt}(c, x, a)\n")
    source = "import torch\n" + "\n".join(methods)
    walks = []
    original = summaries._Fn.arg_flow

    def counted(self, depth=0):
        walks.append(self.fn.name)
        return original(self, depth)

    monkeypatch.setattr(summaries._Fn, "arg_flow", counted)
    table = summarize(source)
    assert table["Chain.m0"].arg_flow is not None
    assert len(walks) <= 2 * 12, f"{len(walks)} arg_flow walks for 12 methods"


def test_stores_graph_names_network_outputs_kept_on_self():
    table = summarize(textwrap.dedent("""
        class Model:
            def __init__(self, net):
                self.netG = net
                self.h0 = self.netG(0)
            def set_input(self, a):
                self.real = a
            def forward(self):
                out = self.netG(self.real)
                self.fake = out
                self.shown = self.netG(self.real).detach()
            def helper(self):
                return 1
            def calls_method(self):
                self.n = self.helper()
    """))
    assert table["Model.forward"].stores_graph == ("self.fake",)
    assert table["Model.set_input"].stores_graph == ()
    assert table["Model.calls_method"].stores_graph == ()
    assert table["Model.__init__"].stores_graph == ()


def _trainer(get_loss_body):
    return textwrap.dedent("""
        import torch
        from torch import nn
        from losses import init_loss

        class Model:
            def __init__(self):
                self.netG = nn.Linear(4, 4)
                self.netD = nn.Linear(4, 1)
                self.opt_d = torch.optim.SGD(self.netD.parameters(), lr=0.1)
                self.opt_g = torch.optim.SGD(self.netG.parameters(), lr=0.1)
                self.disc = init_loss()

            def forward(self, x, real):
                self.fake = self.netG(x)
                self.real = real

            def backward_D(self):
                self.loss_D = self.disc.get_loss(self.netD, self.fake, self.real)
                self.loss_D.backward(retain_graph=True)

            def backward_G(self):
                self.loss_G = self.netD(self.fake).mean()
                self.loss_G.backward()

            def step(self, x, real):
                self.forward(x, real)
                self.opt_d.zero_grad()
                self.backward_D()
                self.opt_d.step()
                self.opt_g.zero_grad()
                self.backward_G()
                self.opt_g.step()

            def errors(self):
                return self.loss_D.item()
    """), textwrap.dedent(f"""
        class DLoss:
            def get_loss(self, net, fake, real):
                {get_loss_body}

        def init_loss():
            return DLoss()
    """)


def _ad104(tmp_path, get_loss_body):
    train, losses = _trainer(get_loss_body)
    (tmp_path / "train.py").write_text(train)
    (tmp_path / "losses.py").write_text(losses)
    findings, _, _ = check_source(train, str(tmp_path / "train.py"), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_retain_unneeded_when_the_loss_object_detaches_the_stored_fake(tmp_path):
    found = _ad104(tmp_path, "return net(fake.detach()).mean() - net(real).mean()")
    assert [f.line for f in found] == [20]
    assert "cut `self.fake`" in found[0].message and "unsafe" in found[0].message


def test_retain_needed_when_the_loss_object_keeps_the_stored_fake(tmp_path):
    # backward_G walks the generator's graph that forward() kept on self again
    assert _ad104(tmp_path, "return net(fake).mean() - net(real).mean()") == []


def test_self_attributes_the_class_only_fills_with_numbers_carry_no_graph():
    table = summarize(textwrap.dedent("""
        class Meter:
            def __init__(self, lr):
                self.n = 0
                self.lr = float(lr)
            def count(self):
                return self.n
            def rate(self):
                return self.lr
            def forward(self, x):
                self.h = self.rnn(x)
                return self.h
            def last(self):
                return self.h
    """))
    assert table["Meter.count"].result == "const"
    assert table["Meter.rate"].result == "cut"
    assert table["Meter.forward"].result == "graph"
    assert table["Meter.last"].result != "const"  # filled by a network elsewhere
