"""Issue 8 (AD109 and AD106 recall on real code).

AD109: a loss term computed from cut values and values with no graph alone
(`adv = ret - values.detach()`, then `adv.pow(2)` as the critic's loss) is a
constant, also when the loss reduces a sum (`(a + b).mean()`), when the cut
sits in a name the term reads, and when a value the syntax cannot follow
(`ret[t] = g` in a loop) is shown by the walk to carry no graph
(analysis/dead_terms.py).

AD106: a method that sets a module's recurrent state (`init_hidden`) resets
it only if something calls it outside `__init__`, in this file or in the
project's files (analysis/module_state.py)."""
import os
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _found(src: str, code: str, path: str = "train.py"):
    rules = [r for r in all_rules() if r.code == code]
    found, _, _ = check_source(textwrap.dedent(src), path, rules, Options())
    return [(f.line, f.fix, f.message) for f in found]


TRAINER = """
import torch
from torch import nn


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 16)
        self.pi = nn.Linear(16, 2)
        self.v = nn.Linear(16, 1)
        self.opt = torch.optim.Adam(self.parameters(), lr=1e-3)

    def update(self, obs, acts, rews):
        h = torch.relu(self.body(obs))
        logp = torch.log_softmax(self.pi(h), -1).gather(1, acts[:, None]).squeeze(1)
        values = self.v(h).squeeze(1)
        ret = torch.zeros(len(rews))
        g = 0.0
        for t in reversed(range(len(rews))):
            g = rews[t] + 0.99 * g
            ret[t] = g
        adv = {adv}
        actor = -logp * {weight}
        critic = adv.pow(2)
        loss = torch.mean(actor + 0.5 * critic)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
"""

SCRIPT = """
import torch
from torch import nn
net = nn.Linear(4, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for i in range(3):
    out = net(torch.randn(5, 4))
    logits, value = out[:, :2], out[:, 2]
    target = torch.randn(5)
    delta = {delta}
    pg = -torch.log_softmax(logits, -1)[:, 0] * {weight}
    vl = delta ** 2
    opt.zero_grad()
    (pg + vl).sum().backward()
    opt.step()
"""


def test_critic_term_squared_from_a_cut_value_in_a_trainer_method():
    found = _found(TRAINER.format(adv="ret - values.detach()", weight="adv"), "AD109")
    assert [(line, fix) for line, fix, _ in found] == [(23, "none")]
    msg = found[0][2]
    assert "adds `adv.pow(2)`, a term computed from `values.detach()`" in msg
    assert "`self.v` reaches the loss only through it and never learns" in msg


def test_critic_term_in_a_script_with_a_reduced_sum():
    found = _found(SCRIPT.format(delta="target - value.detach()", weight="delta"), "AD109")
    assert [(line, fix) for line, fix, _ in found] == [(10, "none")]
    assert "adds `delta ** 2`" in found[0][2]


def test_baseline_cut_only_in_the_policy_term_is_left_alone():
    assert _found(TRAINER.format(adv="ret - values", weight="adv.detach()"), "AD109") == []
    assert _found(SCRIPT.format(delta="target - value", weight="delta.detach()"), "AD109") == []
    # a target network's output cut in a TD error that the online value keeps live
    assert _found(SCRIPT.format(delta="target + 0.9 * net(torch.randn(5, 4))[:, 2].detach() - value",
                                weight="delta.detach()"), "AD109") == []


def test_a_term_that_reads_a_name_the_walk_cannot_clear_is_left_alone():
    # `ret` from a helper of another module: unknown, so the term may carry a graph
    src = TRAINER.format(adv="ret - values.detach()", weight="adv").replace(
        "import torch\n", "import torch\nfrom returns import discounted\n", 1).replace(
        "adv = ret", "ret = discounted(h, rews)\n        adv = ret")
    assert _found(src, "AD109") == []


MODEL = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, batch):
        super().__init__()
        self.rnn = nn.LSTM(3, 8, batch_first=True)
        self.out = nn.Linear(8, 1)
        self.reset_hc(batch)

    def reset_hc(self, batch):
        self.hc = (torch.zeros(1, batch, 8), torch.zeros(1, batch, 8))

    def forward(self, x):
{pre}        y, self.hc = self.rnn(x, self.hc)
        return self.out(y[:, -1])
"""


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    os.utime(path, ns=(1, 1))


def _model_findings(path):
    with open(path) as fh:
        found, _, _ = check_source(fh.read(), str(path), all_rules(), Options())
    return [(f.line, f.fix, f.message) for f in found if f.code == "AD106"]


def test_state_set_by_a_method_only_init_calls_is_reported_unsafe(tmp_path):
    _write(tmp_path / "model.py", MODEL.format(pre=""))
    _write(tmp_path / "run.py", "from model import Net\nnet = Net(4)\n")
    found = _model_findings(tmp_path / "model.py")
    assert [(line, fix) for line, fix, _ in found] == [(17, "unsafe")]
    assert "`reset_hc` sets `self.hc` but nothing in the project calls it outside `__init__`" in found[0][2]


def test_state_reset_by_a_caller_in_the_project_or_in_forward_is_left_alone(tmp_path):
    _write(tmp_path / "model.py", MODEL.format(pre=""))
    (tmp_path / "loop").mkdir()
    _write(tmp_path / "loop" / "fit.py", """
        def fit(net, batches, opt):
            for x, y in batches:
                net.reset_hc(x.size(0))
                loss = (net(x) - y).pow(2).mean()
                opt.zero_grad(); loss.backward(); opt.step()
        """)
    assert _model_findings(tmp_path / "model.py") == []
    (tmp_path / "loop" / "fit.py").unlink()
    _write(tmp_path / "hooks.py", "def reset(net, n):\n    getattr(net, 'reset_hc')(n)\n")
    assert _model_findings(tmp_path / "model.py") == []


def test_state_reset_in_forward_is_left_alone(tmp_path):
    _write(tmp_path / "model.py", MODEL.format(pre="        self.reset_hc(x.size(0))\n"))
    assert _model_findings(tmp_path / "model.py") == []


FLOW = """
import torch
from torch import nn
cell = nn.{cell}(3, 6)
xs = torch.randn(5, 2, 3)
{start}
for t in range(5):
    {step}
    loss = {out}.abs().sum()
    loss.backward(retain_graph=True)
    print({probe}.grad.norm().item())
    {probe}.grad = None
"""


def test_gradient_reaching_the_chain_start_is_a_wanted_retain():
    src = FLOW.format(cell="GRUCell", start="h0 = torch.zeros(2, 6, requires_grad=True)\nh = h0",
                      step="h = cell(xs[t], h)", out="h", probe="h0")
    assert _found(src, "AD106") == []
    # an LSTM cell's pair, started from a tuple, in a function
    src = FLOW.format(cell="LSTMCell", start="h0, c0 = torch.zeros(2, 6, requires_grad=True), torch.zeros(2, 6)\n"
                      "h, c = h0, c0", step="h, c = cell(xs[t], (h, c))", out="h", probe="h0")
    body = "\n".join("    " + ln for ln in src.splitlines()[4:])
    src = "\n".join(src.splitlines()[:4]) + "\n\n\ndef probe():\n" + body + "\n"
    assert _found(src, "AD106") == []


def test_a_gradient_read_elsewhere_keeps_the_retained_chain_reported():
    # the gradient read is a parameter's, the state did not start from it
    src = FLOW.format(cell="GRUCell", start="h = torch.zeros(2, 6)", step="h = cell(xs[t], h)", out="h",
                      probe="cell.weight_hh")
    assert [fix for _, fix, _ in _found(src, "AD106")] == ["unsafe"]
    src = FLOW.format(cell="GRUCell", start="h0 = torch.zeros(2, 6, requires_grad=True)\nh = torch.zeros(2, 6)",
                      step="h = cell(xs[t], h)", out="h", probe="h0")
    assert [fix for _, fix, _ in _found(src, "AD106")] == ["unsafe"]


def _copy_case(tmp_path, name):
    here = os.path.join(os.path.dirname(__file__), "..", "corpus", "AD106", name)
    for f in ("models.py", "train.py"):
        with open(os.path.join(here, f)) as fh:
            _write(tmp_path / f, fh.read())


def test_state_the_named_class_replaces_in_forward_is_left_alone(tmp_path):
    _copy_case(tmp_path, "ok_state_replaced_in_forward")
    assert _model_findings(tmp_path / "train.py") == []
    # `in model.name`, nested under another arm, in a trainer method
    text = (tmp_path / "train.py").read_text()
    text = text.replace('        if model.name == "NoisyGRU":',
                        '        if "Noisy" in model.name:\n            if True:')
    text = text.replace("            y, state = model(x, state if i else None)",
                        "                y, state = model(x, state if i else None)")
    _write(tmp_path / "train.py", text.replace('"Noisy" in', '"NoisyGRU" in'))
    assert _model_findings(tmp_path / "train.py") == []


def test_state_the_named_class_keeps_is_still_reported(tmp_path):
    _copy_case(tmp_path, "ok_state_replaced_in_forward")
    models = (tmp_path / "models.py").read_text()
    for keep in ("state = state if state is not None else torch.zeros(1, 1, 8)",
                 "state = torch.randn(1, 1, 8) + state if state is not None else state"):
        _write(tmp_path / "models.py", models.replace(
            "state = torch.randn(1, 1, 8) if state is not None else state", keep))
        assert [fix for _, fix, _ in _model_findings(tmp_path / "train.py")] == ["unsafe"], keep
    # the arm names a class the project does not have: nothing is known about the model
    _write(tmp_path / "models.py", models)
    text = (tmp_path / "train.py").read_text().replace('model.name == "NoisyGRU"', 'model.name == "Other"')
    _write(tmp_path / "train.py", text)
    assert [fix for _, fix, _ in _model_findings(tmp_path / "train.py")] == ["unsafe"]


SAC_BASELINE = """
import torch
from torch import nn


class Agent:
    def __init__(self):
        self.actor = nn.Linear(4, 2)
        self.qf = nn.Linear(6, 1)
        self.vf = nn.Linear(4, 1)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.vf_opt = torch.optim.Adam(self.vf.parameters(), lr=1e-3)

    def update(self, state):
        action = torch.tanh(self.actor(state))
        log_prob = -action.pow(2).sum(1, keepdim=True)
        q_pred = self.qf(torch.cat([state, action], 1))
        v_pred = self.vf(state)
        vf_loss = (v_pred - (q_pred - log_prob).detach()).pow(2).mean()
        advantage = q_pred - V_TERM
        actor_loss = (0.2 * log_prob - advantage).mean()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()
        self.vf_opt.zero_grad()
        vf_loss.backward()
        self.vf_opt.step()
"""


def test_baseline_of_a_value_net_trained_by_its_own_loss_is_no_dead_term():
    # `v_pred.detach()` is a constant baseline of the actor loss: the value net learns from vf_loss, whose
    # optimizer is cleared before its own backward; the actor's step is the only one this backward feeds
    assert _found(SAC_BASELINE.replace("V_TERM", "v_pred.detach()"), "AD109") == []


def test_q_cut_from_the_actor_loss_is_still_a_dead_term():
    src = SAC_BASELINE.replace("advantage = q_pred - V_TERM", "advantage = q_pred.detach() - v_pred.detach()")
    assert _found(src, "AD109"), "the actor's only path to q is cut"
