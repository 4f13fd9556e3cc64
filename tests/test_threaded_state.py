"""Local recurrent state a loop feeds back into the call that returned it (analysis/threaded_state.py)."""
import textwrap

from autodetach import check_code

MODEL = """
import random
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(4, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x, h=None):
        out, h = self.gru(x, h)
        return self.head(out), h


class Agent:
    def __init__(self):
        self.net = Net()

    def act(self, obs, h):
        q, h2 = self.net(obs, h)
        return q.argmax().item(), h2


net = Net()
agent = Agent()
opt = torch.optim.SGD(net.parameters(), lr=0.1)


def learn(batch):
    loss = net(batch)[0].pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

"""


def _ad101(loop: str) -> list:
    return [f.message for f in check_code(MODEL + textwrap.dedent(loop), select=["AD101"])]


def test_sampling_loop_reported():
    found = _ad101("""
        def sample(x):
            net.eval()
            h = None
            for t in range(5):
                out, h = net(x, h)
                x = out.argmax(-1).float().unsqueeze(-1).expand(1, 1, 4)
    """)
    assert len(found) == 1 and "`h`" in found[0] and "model.eval()" in found[0], found


def test_agent_method_reported():
    found = _ad101("""
        h = torch.zeros(1, 1, 8)
        for t in range(5):
            a, h = agent.act(torch.randn(1, 1, 4), h)
    """)
    assert len(found) == 1 and "`Agent.act` runs `self.net`" in found[0], found


def test_outputs_kept_with_graph_silent():
    # unrolled: the outputs reach a later backward through the state
    assert _ad101("""
        h = None
        outs = []
        for t in range(5):
            out, h = net(torch.randn(1, 1, 4), h)
            outs.append(out)
        torch.stack(outs).sum().backward()
    """) == []


def test_cut_or_reset_in_loop_silent():
    for cut in ("h = h.detach()", "h = torch.zeros(1, 1, 8)", "h.detach_()"):
        assert _ad101(f"""
            h = None
            for t in range(5):
                out, h = net(torch.randn(1, 1, 4), h)
                {cut}
                print(out.argmax().item())
        """) == [], cut


def test_no_grad_here_or_in_caller_silent():
    assert _ad101("""
        h = None
        with torch.no_grad():
            for t in range(5):
                out, h = net(torch.randn(1, 1, 4), h)
    """) == []
    assert _ad101("""
        def sample(x):
            h = None
            for t in range(5):
                out, h = net(x, h)
            return out.argmax().item()

        with torch.no_grad():
            sample(torch.randn(1, 1, 4))
    """) == []


def test_training_loop_not_acting():
    # backward each step: AD106's question, not an acting loop
    assert _ad101("""
        h = None
        for t in range(5):
            out, h = net(torch.randn(1, 1, 4), h)
            loss = out.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    """) == []


def test_state_used_after_loop_silent():
    # the state leaves the function: a caller may train through it
    assert _ad101("""
        def encode(xs):
            h = None
            for x in xs:
                out, h = net(x, h)
            return h
    """) == []


def test_method_returning_detached_state_silent():
    src = MODEL.replace("return q.argmax().item(), h2", "return q.argmax().item(), h2.detach()")
    found = check_code(src + textwrap.dedent("""
        h = torch.zeros(1, 1, 8)
        for t in range(5):
            a, h = agent.act(torch.randn(1, 1, 4), h)
    """), select=["AD101"])
    assert found == [], [f.message for f in found]


def test_method_cutting_its_argument_first(tmp_path):
    from autodetach.analysis.method_cuts import cut_positions

    path = tmp_path / "trainer.py"
    path.write_text(textwrap.dedent("""
        class Trainer:
            def loss(self, x, h):
                h = h.detach()
                out, h = self.model(x, h)
                return out.sum(), h

            def keep(self, x, h):
                out, h = self.model(x, h)
                h = h.detach()
                return out.sum(), h
    """))
    assert cut_positions(str(path), "loss", 2) == frozenset({1})
    assert cut_positions(str(path), "keep", 2) == frozenset()


def test_decoding_inside_forward_silent():
    # a module's forward: its callers, out of sight, choose the grad mode
    found = check_code(MODEL + textwrap.dedent("""
        class Decoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = Net()

            def forward(self, x):
                h = None
                words = []
                for t in range(5):
                    out, h = self.net(x, h)
                    words.append(out.argmax(-1))
                return words
    """), select=["AD101"])
    assert found == [], [f.message for f in found]
