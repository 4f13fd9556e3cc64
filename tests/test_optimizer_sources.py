"""Where an optimizer's parameters come from, in shapes of real training
code: one optimizer per network kept in lists, parameter lists kept on
`self` (and chained assignments), lists appended from `named_parameters()`,
a loss helper that reads the model through a local alias; and AD109 partial
cuts (one term of the loss runs another model on a value cut from the stepped ones)."""
import textwrap

import libcst as cst

from autodetach.analysis.names import build_names
from autodetach.engine import Options, check_source
from autodetach.imports import ImportTable
from autodetach.registry import all_rules


def _names(src):
    mod = cst.parse_module(textwrap.dedent(src))
    return build_names(mod, ImportTable.from_module(mod))


def _found(src, code="AD108"):
    findings, _, _ = check_source(textwrap.dedent(src), "case.py", all_rules(), Options())
    return [f for f in findings if f.code == code]


ENSEMBLE = """
import torch
from torch import nn

class Agent:
    def __init__(self, n):
        self.policy = nn.Linear(4, 2)
        self.q_nets = []
        for _ in range(n):
            self.q_nets.append(nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1)))
        self.policy_opt = torch.optim.Adam(self.policy.parameters())
        self.q_opts = []
        for i in range(n):
            self.q_opts.append(torch.optim.Adam(self.q_nets[i].parameters()))
        self.n = n

    def update(self, obs, act, target):
        preds = []
        for i in range(self.n):
            preds.append(self.q_nets[i](torch.cat([obs, act], 1)))
        q_loss = ((torch.cat(preds, 1) - target) ** 2).mean()
        {policy}
        for i in range(self.n):
            self.q_opts[i].zero_grad()
        q_loss.backward()
        for i in range(self.n):
            self.q_opts[i].step()
        {after}
        self.policy_opt.zero_grad()
        policy_loss.backward()
        self.policy_opt.step()
"""
POLICY = """qs = []
        for i in range(self.n):
            qs.append(self.q_nets[i](torch.cat([obs, self.policy(obs)], 1)))
        policy_loss = -torch.cat(qs, 1).mean()"""


def test_optimizers_appended_per_entry_step_the_entries():
    table = _names(ENSEMBLE.format(policy="", after=""))
    assert table.optimizers["self.q_opts[]"].owns == frozenset({"self.q_nets[]"})
    assert "which entry steps which is not followed" in table.inferred["self.q_opts[]"]


def test_loss_through_the_entries_before_their_steps_is_stale():
    found = _found(ENSEMBLE.format(policy=POLICY, after=""))
    assert len(found) == 1
    assert "inferred: the entries of `self.q_opts` step `self.q_nets[]`" in found[0].message


def test_loss_built_after_the_entries_stepped_is_not_stale():
    assert _found(ENSEMBLE.format(policy="", after=POLICY)) == []


def test_optimizer_list_of_other_values_keeps_the_owner_unknown():
    src = ENSEMBLE.format(policy="", after="").replace("self.q_nets[i].parameters()", "make_params(i)")
    assert _names(src).optimizers["self.q_opts[]"].owns is None


APPENDED = """
import torch
from torch import nn

class Model:
    def __init__(self):
        self.net_g = nn.Linear(4, 4)
        self.net_d = nn.Linear(4, 1)
        params = []
        for k, v in self.net_g.named_parameters():
            if v.requires_grad:
                params.append(v)
        self.opt_g = torch.optim.Adam(params)
        others = []
        for p in self.net_d.parameters():
            others.append(p * 1)
        self.opt_d = torch.optim.Adam(others)
"""


def test_list_appended_from_named_parameters_is_owned():
    table = _names(APPENDED)
    assert table.optimizers["self.opt_g"].owns == frozenset({"self.net_g"})


def test_list_appended_with_other_values_is_unknown_not_empty():
    assert _names(APPENDED).optimizers["self.opt_d"].owns is None


ALIASED = """
import torch

class Algo:
    def __init__(self, agent):
        self.agent = agent
        model = self.agent.model
        self.model_params = model_params = list(model.encoder.parameters()) + list(model.reward.parameters())
        self.actor_params = model.actor.parameters()
        self.model_opt = torch.optim.Adam(self.model_params)
        self.actor_opt = torch.optim.Adam(self.actor_params)

    def loss(self, obs, reward):
        model = self.agent.model
        feat = model.encoder(obs)
        model_loss = ((model.reward(feat) - reward) ** 2).mean()
        actor_loss = -model.reward(model.actor(feat.detach())).mean()
        return model_loss, actor_loss

    def optimize(self, obs, reward):
        model_loss, actor_loss = self.loss(obs, reward)
        self.model_opt.zero_grad()
        model_loss.backward()
        self.model_opt.step()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()
"""


def test_parameter_lists_kept_on_self_and_chained_are_owned():
    table = _names(ALIASED)
    assert table.optimizers["self.model_opt"].owns == frozenset({"model.encoder", "model.reward"})
    assert table.optimizers["self.actor_opt"].owns == frozenset({"model.actor"})


def test_helper_reading_the_model_through_an_alias_gives_its_graph():
    found = _found(ALIASED)
    assert [f.line for f in found] == [26]


def test_helper_alias_of_something_else_is_not_followed():
    # `model` bound to a plain argument in the helper: not known to be the model the optimizers step
    src = ALIASED.replace("        model = self.agent.model\n        feat", "        feat").replace(
        "def loss(self, obs, reward):", "def loss(self, obs, reward, model=None):")
    assert _found(src) == []


PEERS = """
import torch
from torch import nn
from torch.autograd import Variable
import torch.nn.functional as F


class Trainer:
    def __init__(self):
        self.models = [nn.Linear(4, 3), nn.Linear(4, 3)]
        self.optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in self.models]
        self.model_num = 2

    def train(self, loader):
        for images in loader:
            outputs = []
            for model in self.models:
                outputs.append(model(images))
            for i in range(self.model_num):
                kl_loss = 0
                for j in range(self.model_num):
                    if i != j:
                        kl_loss += F.kl_div(F.log_softmax(outputs[i], dim=1), F.softmax(Variable(outputs[j]), dim=1))
                loss = outputs[i].pow(2).mean() + kl_loss
                self.optimizers[i].zero_grad()
                loss.backward()
                self.optimizers[i].step()
"""


def test_per_model_outputs_in_a_list_are_not_one_freed_graph():
    # each entry is its own graph (deep mutual learning): the read `outputs[i]` cannot tell them apart
    assert _found(PEERS, "AD101") == []


PARTIAL = """
import torch
from torch import nn
G = nn.Linear(4, 4); D = nn.Linear(4, 1)
opt_g = torch.optim.SGD(G.parameters(), lr=0.1)
opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
for i in range(3):
    fake = G(torch.randn(2, 4))
    opt_d.zero_grad()
    d_loss = D(fake.detach()).mean()
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    {term}
    g_loss = adv + (fake - torch.randn(2, 4)).abs().mean()
    g_loss.backward()
    opt_g.step()
"""


def test_adversarial_term_on_a_cut_value_is_a_partial_cut():
    found = _found(PARTIAL.format(term="adv = -D(fake.detach()).mean()"), "AD109")
    assert [f.line for f in found] == [14]
    assert "sends them no gradient" in found[0].message


def test_cut_reference_next_to_the_live_term_is_not_a_partial_cut():
    # a relativistic loss: D on the detached fake is only the mean it is compared with
    term = "adv = -(D(fake) - D(fake.detach()).mean()).mean()"
    assert _found(PARTIAL.format(term=term), "AD109") == []


def test_a_parameter_list_name_bound_in_two_methods_owns_nothing_known():
    # `mana_params` of `split_params` is not the caller's `mana_params, work_params = ...`
    table = _names("""
    import torch
    from torch import nn

    class Gen(nn.Module):
        def __init__(self):
            super().__init__()
            self.manager = nn.Linear(4, 4)
            self.worker = nn.Linear(4, 4)

        def split_params(self):
            mana_params = list(self.manager.parameters())
            work_params = list(self.worker.parameters())
            return mana_params, work_params

    class Trainer:
        def __init__(self):
            self.gen = Gen()
            mana_params, work_params = self.gen.split_params()
            self.mana_opt = torch.optim.Adam(mana_params)
            self.gen_opt = torch.optim.Adam(list(self.gen.worker.parameters()))
    """)
    assert table.optimizers["self.mana_opt"].owns is None
    assert table.optimizers["self.gen_opt"].owns == frozenset({"self.gen.worker"})
