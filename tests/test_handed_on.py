"""AD108 shapes whose link or optimizer lives in another file (issue 8):
a state carried past the step through `agent.get_action(state)` of a class
of another file (analysis/handed_on.py, the summaries' torch.distributions
flow), and optimizers a model's method builds (`opt, opt_D =
model.get_optimizer(lr)`, analysis/bound_optimizers.py). Both are
inferences: reported without a fix, saying so."""
import textwrap

import libcst as cst

from autodetach.analysis.names import build_names
from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.imports import ImportTable
from autodetach.registry import all_rules

AGENT = """
import torch
from torch import nn
from torch.distributions import Categorical


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Linear(4, 8)
        self.w = nn.Parameter(torch.randn(8, 2))

    def get_state(self, obs):
        return self.features(obs)

    def get_action(self, state):
        dist = Categorical(({arg} @ self.w).softmax(-1))
        action = dist.sample()
        return action.item(), dist.log_prob(action)
"""

LOOP = """
import torch
from agents import Agent


def run(steps):
    agent = Agent()
    optim = torch.optim.SGD(agent.parameters(), lr=0.1)
    state = agent.get_state(torch.randn(1, 4))
    for i in range(steps):
        action, logp = agent.get_action(state)
        state = agent.get_state(torch.randn(1, 4) + action)
        loss = -logp.mean()
        optim.zero_grad()
        loss.backward()
        optim.step()
"""


def _project(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    path = tmp_path / "train.py"
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return findings


def test_distribution_keeps_its_parameters_graph_and_sample_cuts():
    s = summarize(textwrap.dedent(AGENT.format(arg="state")))["Agent.get_action"]
    assert s.arg_flow == ("graph",)
    assert s.elems == ("cut", "graph")  # `action.item()`, then the log-probability


def test_distribution_of_a_cut_state_passes_nothing():
    s = summarize(textwrap.dedent(AGENT.format(arg="state.data")))["Agent.get_action"]
    assert s.arg_flow == ("cut",)


def test_distribution_class_under_an_alias():
    src = """
    import torch.distributions as D

    def act(logits):
        return D.Normal(logits, 1.0).log_prob(logits)
    """
    assert summarize(textwrap.dedent(src))["act"].result == "graph"


def test_state_carried_through_an_imported_agent_is_stale(tmp_path):
    found = [f for f in _project(tmp_path, {"agents.py": AGENT.format(arg="state"), "train.py": LOOP})
             if f.code == "AD108"]
    assert [(f.line, f.fix) for f in found] == [(15, "none")]
    assert "`agent.get_action()` (read from another file) is taken to hand `state`" in found[0].message


def test_imported_agent_that_cuts_the_state_is_not_reported(tmp_path):
    found = _project(tmp_path, {"agents.py": AGENT.format(arg="state.detach()"), "train.py": LOOP})
    assert not [f for f in found if f.code == "AD108"]


def test_agent_whose_element_is_a_number_is_not_a_link(tmp_path):
    # `action` is `.item()` there: carrying it links nothing
    loop = LOOP.replace("loss = -logp.mean()", "loss = -(logp * 0).mean() + agent.get_state(state * 0).sum()")
    loop = loop.replace("action, logp = agent.get_action(state)", "action, logp = agent.get_action(state.detach())")
    found = _project(tmp_path, {"agents.py": AGENT.format(arg="state"), "train.py": loop})
    assert not [f for f in found if f.code == "AD108"]


FACTORY = """
import torch
from model import AdaptNet

model = AdaptNet()
{bind}
for x in [torch.randn(2, 4)] * 3:
    feat = model(x)
    d_loss = model.forward_D(feat).mean()
    f_loss = -model.forward_D(feat).mean() + feat.pow(2).mean()
    opt_D.zero_grad()
    d_loss.backward(retain_graph=True)
    opt_D.step()
    opt.zero_grad()
    f_loss.backward()
    opt.step()
"""


def _names(src):
    mod = cst.parse_module(textwrap.dedent(src))
    return build_names(mod, ImportTable.from_module(mod))


def test_names_unpacked_from_a_method_result_are_optimizers():
    table = _names(FACTORY.format(bind="opt, opt_D = model.get_optimizer(0.1)"))
    assert table.optimizers["opt_D"].owns is None
    assert "`model.get_optimizer()` builds it out of sight" in table.inferred["opt_D"]


def test_a_called_name_is_not_an_optimizer():
    src = FACTORY.format(bind="opt, opt_D = model.get_optimizer(0.1)") + "\nopt_D()\n"
    assert "opt_D" not in _names(src).optimizers


MODEL = """
import torch
from torch import nn


class AdaptNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = nn.Linear(4, 4)
        self.D = nn.Linear(4, 1)

    def forward(self, x):
        return self.f(x)

    def forward_D(self, feat):
        return self.D(feat)

    def get_optimizer(self, lr):
        return torch.optim.SGD(self.f.parameters(), lr=lr), torch.optim.SGD(self.D.parameters(), lr=lr)
"""


def test_stale_through_an_optimizer_from_a_model_method(tmp_path):
    train = FACTORY.format(bind="opt, opt_D = model.get_optimizer(0.1)")
    found = [f for f in _project(tmp_path, {"model.py": MODEL, "train.py": train}) if f.code == "AD108"]
    assert [(f.line, f.fix) for f in found] == [(15, "none")]
    assert "the parameters of `opt_D` are not known here" in found[0].message


def test_optimizer_from_a_model_method_stepped_after_both_backwards(tmp_path):
    train = FACTORY.format(bind="opt, opt_D = model.get_optimizer(0.1)").replace(
        "    opt_D.step()\n", "").replace("    opt.step()\n", "    opt.step()\n    opt_D.step()\n")
    assert "opt_D.step()" in train
    assert not [f for f in _project(tmp_path, {"model.py": MODEL, "train.py": train}) if f.code == "AD108"]


RUNNER = """
import torch
from agents import Agent


class Runner:
    def __init__(self):
        self.agent = Agent()
        self.optim = torch.optim.SGD(self.agent.parameters(), lr=0.1)

    def run(self, steps):
        state = self.agent.get_state(torch.randn(1, 4))
        for i in range(steps):
            action, logp = self.agent.get_action({arg})
            state = self.agent.get_state(torch.randn(1, 4) + action)
            loss = -logp.mean()
            self.optim.zero_grad()
            loss.backward()
            self.optim.step()
"""


def test_agent_kept_on_self_by_a_trainer_class(tmp_path):
    found = _project(tmp_path, {"agents.py": AGENT.format(arg="state"), "train.py": RUNNER.format(arg="state")})
    assert [(f.code, f.line) for f in found if f.code == "AD108"] == [("AD108", 18)]


def test_state_handed_by_keyword_is_not_judged(tmp_path):
    # which parameter a keyword fills is not looked up: the link stays unproven
    found = _project(tmp_path, {"agents.py": AGENT.format(arg="state"), "train.py": RUNNER.format(arg="state=state")})
    assert not [f for f in found if f.code == "AD108"]
