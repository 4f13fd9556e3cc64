"""Shapes of real training code from the fresh real-world batches: a project
helper that detaches nested containers, a loss module whose forward returns
(g_loss, d_loss) with d_loss built on a detached fake, and a backward limited
to some parameters with `inputs=`."""
import os
import textwrap

from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

DETACH = """
import torch

def detach(x):
    if isinstance(x, torch.Tensor):
        return x.detach()
    elif isinstance(x, dict):
        return {name: detach(xi) for name, xi in x.items()}
    elif isinstance(x, Output):
        return x.__class__(**{name: detach(xi) for name, xi in x.items()})
    elif isinstance(x, (list, tuple)):
        return [detach(xi) for xi in x]
    else:
        return x

def keep(x):
    return {name: xi for name, xi in x.items()}
"""

LOSSES = """
import torch
import torch.nn as nn

class GanLoss(nn.Module):
    def forward(self, generator, discriminator, real, z):
        fake = generator(z)
        g_loss = -discriminator(fake).mean()
        d_loss = discriminator(fake{cut}).mean() - discriminator(real.detach()).mean()
        return g_loss, d_loss, fake
"""

TRAIN = """
import torch
import torch.nn as nn
from losses import GanLoss

G = nn.Linear(4, 6)
D = nn.Linear(6, 1)
loss_fn = GanLoss()
opt_g = torch.optim.Adam(G.parameters())
opt_d = torch.optim.Adam(D.parameters())
for real in [torch.randn(8, 6)] * 3:
    g_loss, d_loss, fake = loss_fn(G, D, real, torch.randn(8, 4))
    opt_g.zero_grad()
    g_loss.backward({retain})
    opt_g.step()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
"""

INPUTS = """
import torch
import torch.nn as nn

enc = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
critic = nn.Linear(9, 1)
opt_enc = torch.optim.Adam(enc.parameters())
opt_critic = torch.optim.Adam(critic.parameters())
for x in [torch.randn(8, 6)] * 3:
    z = enc(x)
    info = -critic(torch.cat([x, z], 1)).mean()
    loss = z.pow(2).mean() + info
    opt_enc.zero_grad()
    loss.backward(retain_graph=True)
    opt_enc.step()
    opt_critic.zero_grad()
    info.backward(inputs={inputs})
    opt_critic.step()
"""


def _codes(path):
    with open(path) as fh:
        text = fh.read()
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return sorted(f.code for f in findings if f.code.startswith("AD1"))


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    os.utime(path, ns=(1, 1))


def test_recursive_container_detach_helper_cuts():
    table = summarize(DETACH)
    assert table["detach"].result == "cut"
    assert table["keep"].result != "cut"  # a dict of the same values carries them


def test_forward_tuple_says_which_arguments_each_element_hangs_from():
    summary = summarize(LOSSES.format(cut=".detach()"))["GanLoss.forward"]
    assert summary.params == ("generator", "discriminator", "real", "z")
    g_loss, d_loss, fake = summary.elem_flow
    assert g_loss[0] == "graph" and d_loss[0] == "cut" and d_loss[1] == "graph"
    assert fake[1] == "const"
    assert summarize(LOSSES.format(cut=""))["GanLoss.forward"].elem_flow[1][0] == "graph"


def test_loss_module_tuple_element_built_on_a_detached_fake(tmp_path):
    _write(tmp_path / "losses.py", LOSSES.format(cut=".detach()"))
    _write(tmp_path / "train.py", TRAIN.format(retain=""))
    assert _codes(tmp_path / "train.py") == []
    _write(tmp_path / "losses.py", LOSSES.format(cut=""))
    assert _codes(tmp_path / "train.py") == ["AD108"]
    # d_loss walks G's graph: the retain on g_loss's backward is needed, not AD104's
    _write(tmp_path / "train.py", TRAIN.format(retain="retain_graph=True"))
    assert _codes(tmp_path / "train.py") == ["AD108"]


def test_backward_with_inputs_runs_only_their_part_of_the_graph(tmp_path):
    _write(tmp_path / "t.py", INPUTS.format(inputs="list(critic.parameters())"))
    assert _codes(tmp_path / "t.py") == []
    _write(tmp_path / "t.py", INPUTS.format(inputs="list(enc.parameters())"))
    assert _codes(tmp_path / "t.py") == ["AD108"]
    _write(tmp_path / "t.py", INPUTS.format(inputs="params"))  # not followed: the whole graph
    assert _codes(tmp_path / "t.py") == ["AD108"]


POLICY = """
import torch
import torch.nn.functional as F
from torch import nn


class Policy(nn.Module):
    def __init__(self, actor, actor_optim, critic, critic_optim):
        super().__init__()
        self.actor, self.actor_optim = actor, actor_optim
        self.critic, self.critic_optim = critic, critic_optim

    def forward(self, obs):
        return {forward}

    def learn(self, obs, act, target_q):
        a = self(obs)
        q, qa = self.critic(torch.cat([torch.cat([obs, obs]), torch.cat([act, a])], 1)).split(obs.size(0))
        critic_loss = F.mse_loss(q, target_q)
        self.critic_optim.zero_grad()
        critic_loss.backward(retain_graph=True)
        self.critic_optim.step()
        {actor_loss}
        self.actor_optim.zero_grad()
        actor_loss.backward()
        self.actor_optim.step()
"""


def _policy(tmp_path, forward, actor_loss):
    _write(tmp_path / "p.py", POLICY.format(forward=forward, actor_loss=actor_loss))
    with open(tmp_path / "p.py") as fh:
        findings, _, _ = check_source(fh.read(), str(tmp_path / "p.py"), all_rules(), Options())
    return [(f.code, f.line) for f in findings if f.code == "AD108"]


def test_optimizers_on_self_paired_by_name_and_parts_the_forward_runs(tmp_path):
    # `self.critic_optim` steps `self.critic` (by name): the actor's loss through qa is stale
    assert _policy(tmp_path, "torch.tanh(self.actor(obs))", "actor_loss = -qa.mean()") == [("AD108", 25)]
    # recomputed after the step, and `self(obs)` runs only the actor: nothing is stale
    assert _policy(tmp_path, "torch.tanh(self.actor(obs))",
                   "actor_loss = -self.critic(torch.cat([obs, self(obs)], 1)).mean()") == []
    # a forward that runs the critic too: `a` is built before the critic's step
    assert _policy(tmp_path, "self.critic(torch.cat([obs, self.actor(obs)], 1))",
                   "actor_loss = -self.critic(torch.cat([obs, a], 1)).mean()") == [("AD108", 25)]


HELPER = """
import torch


def update_params(optim, network, loss, retain_graph=False):
    optim.zero_grad()
    loss.backward(retain_graph=retain_graph)
    optim.step()
"""

AGENT = """
import torch
from torch import nn
from utils import update_params


class Agent:
    def __init__(self):
        self.policy = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
        self.critic = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
        self.policy_optim = torch.optim.Adam(self.policy.parameters())
        self.critic_optim = torch.optim.Adam(self.critic.parameters())

    def learn(self, obs, act, target_q):
        q_loss = (self.critic(torch.cat([obs, act], 1)) - target_q).pow(2).mean()
        {first}
        update_params(self.critic_optim, self.critic, q_loss)
        {second}
        update_params(self.policy_optim, self.policy, pi_loss)
"""
PI = "pi_loss = -self.critic(torch.cat([obs, self.policy(obs)], 1)).mean()"


def test_step_helper_summary_names_what_it_backwards_and_steps():
    summary = summarize(HELPER)["update_params"]
    assert summary.backward_params == ("loss",) and summary.step_params == ("optim",)
    assert summary.params == ("optim", "network", "loss", "retain_graph")
    assert summarize(HELPER.replace("optim.step()", "pass"))["update_params"].step_params == ()


def test_step_helper_of_another_file_steps_between_build_and_backward(tmp_path):
    _write(tmp_path / "utils.py", HELPER)
    _write(tmp_path / "agent.py", AGENT.format(first=PI, second="pass"))
    with open(tmp_path / "agent.py") as fh:
        findings, _, _ = check_source(fh.read(), str(tmp_path / "agent.py"), all_rules(), Options())
    found = [f for f in findings if f.code == "AD108"]
    assert len(found) == 1 and found[0].line == 19 and found[0].fix == "unsafe"
    assert "`utils.update_params` (read from another file)" in found[0].message
    _write(tmp_path / "agent.py", AGENT.format(first="pass", second=PI))
    assert _codes(tmp_path / "agent.py") == []


def test_an_environment_step_is_no_training_event():
    table = summarize("""
class Wrapper:
    def step(self, action):
        obs, reward = self._env.step(action)
        return obs, reward

    def rollout(self, policy, s):
        return self.env.step(policy(s).argmax().item())

    def train(self, opt, loss, scaler):
        loss.backward()
        scaler.step(opt)

    def lbfgs(self, opt, closure):
        opt.step(closure)
""")
    assert not table["Wrapper.step"].events and not table["Wrapper.rollout"].events
    assert table["Wrapper.train"].events and table["Wrapper.lbfgs"].events


def test_self_attrs_say_which_parts_a_method_runs():
    with open(os.path.join(os.path.dirname(__file__), "..", "corpus", "AD108", "ok_held_parts_method_calls",
                           "nets.py")) as fh:
        table = summarize(fh.read())
    assert table["QuantileNet.embed"].self_attrs == ("encoder",)
    assert table["QuantileNet.__init__"].self_attrs is None  # super().__init__(): self escapes


def test_dict_returns_and_called_parameters_in_summaries():
    table = summarize("""
def compute_loss(model, x, y):
    out = model(x)
    return {"mse": (out - y).pow(2).mean(), "n": len(y)}

def numbers(x):
    return {"n": x.size(0), "mean": x.mean().item()}
""")
    assert table["compute_loss"].result == "graph"
    assert table["numbers"].result == "cut"


LOSS_DICT = """
import torch
from torch import nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
epoch_loss = []
for x, y in [(torch.randn(8, 4), torch.randn(8, 1))] * 3:
    optimizer.zero_grad()
    loss = {"mse": (model(x) - y).pow(2).mean(), "l1": (model(x) - y).abs().mean()}
    loss["mse"].backward()
    optimizer.step()
    epoch_loss.append(loss)
"""


def test_a_dict_whose_element_is_backwarded_is_reported_without_a_detach_of_the_dict(tmp_path):
    _write(tmp_path / "t.py", LOSS_DICT)
    with open(tmp_path / "t.py") as fh:
        findings, _, _ = check_source(fh.read(), str(tmp_path / "t.py"), all_rules(), Options())
    found = [f for f in findings if f.code.startswith("AD1")]
    assert [(f.code, f.fix) for f in found] == [("AD102", "none")]
    assert "detach each tensor in it" in found[0].message


def test_lightning_backward_hook_and_a_class_own_backward_method():
    with open(os.path.join(os.path.dirname(__file__), "..", "corpus", "AD104", "lightning_backward_hook.py")) as fh:
        findings, _, _ = check_source(fh.read(), "hook.py", all_rules(), Options())
    found = [(f.code, f.fix) for f in findings if f.code.startswith("AD1")]
    assert found == [("AD104", "unsafe")]
    assert [f for f in findings if f.code == "AD104"][0].message.count("overrides LightningModule's hook") == 1
    # manual optimisation: the hook runs twice on one graph, and `self.backward(x)` is the class's
    # own method (main added retain_graph=True to it: a TypeError)
    with open(os.path.join(os.path.dirname(__file__), "..", "corpus", "AD104",
                           "ok_lightning_backward_hook_manual.py")) as fh:
        findings, _, _ = check_source(fh.read(), "manual.py", all_rules(), Options())
    assert [f.code for f in findings if f.code.startswith("AD1")] == []


def test_lightning_backward_hook_is_found_through_local_bases_and_only_on_lightning():
    with open(os.path.join(os.path.dirname(__file__), "..", "corpus", "AD104", "lightning_backward_hook.py")) as fh:
        text = fh.read()
    based = text.replace("class Regressor(pl.LightningModule):",
                         "class Base(pl.LightningModule):\n    pass\n\n\nclass Regressor(Base):")
    findings, _, _ = check_source(based, "based.py", all_rules(), Options())
    assert [(f.code, f.fix) for f in findings if f.code.startswith("AD1")] == [("AD104", "unsafe")]
    # a class of another library that happens to be called LightningModule is not Lightning
    other = text.replace("import pytorch_lightning as pl", "import otherlib as pl")
    findings, _, _ = check_source(other, "other.py", all_rules(), Options())
    assert not any("overrides LightningModule's hook" in f.message for f in findings)


DDP_PARTS = """
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.generator = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        self.encoder = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))

    def forward(self, z):
        fake = self.generator(z)
        return fake.pow(2).mean(), self.encoder(fake).pow(2).mean()


model = Model()
model = DDP(model)
g_optim = torch.optim.Adam(model.module.generator.parameters())
e_optim = torch.optim.Adam(model.module.encoder.parameters())
for z in [torch.randn(8, 4)] * 3:
    g_loss, e_loss = model(z)
    g_optim.zero_grad()
    g_loss.backward(retain_graph=True)
    g_optim.step()
    e_optim.zero_grad()
    e_loss.backward()
    e_optim.step()
"""


def test_parts_reached_through_the_wrapper_module_attribute(tmp_path):
    # `model.module.generator` is the forward's `self.generator`: the step makes e_loss's graph stale
    _write(tmp_path / "t.py", DDP_PARTS)
    assert "AD108" in _codes(tmp_path / "t.py")


def test_a_dict_of_outputs_kept_per_step_is_ad101_without_a_fix(tmp_path):
    # packnet-sfm's trainer: `output = module.training_step(batch)`, `output["loss"].backward()`,
    # `outputs.append(output)`: main offered `outputs.append(output.detach())` (fails on a dict)
    _write(tmp_path / "t.py", LOSS_DICT.replace("loss", "output").replace("epoch_output", "outputs"))
    with open(tmp_path / "t.py") as fh:
        findings, _, _ = check_source(fh.read(), str(tmp_path / "t.py"), all_rules(), Options())
    found = [(f.code, f.fix) for f in findings if f.code.startswith("AD1")]
    assert found == [("AD101", "none")]
