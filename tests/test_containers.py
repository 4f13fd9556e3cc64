"""Models, optimizers and losses kept in containers (analysis/containers.py,
analysis/model_containers.py, analysis/arms.py)."""
import textwrap

import libcst as cst

from autodetach.analysis.names import build_names
from autodetach.engine import Options, check_source
from autodetach.imports import ImportTable
from autodetach.registry import all_rules


def _names(src):
    mod = cst.parse_module(textwrap.dedent(src))
    return build_names(mod, ImportTable.from_module(mod))


def _found(src, code):
    findings, _, _ = check_source(textwrap.dedent(src), "case.py", all_rules(), Options())
    return [f for f in findings if f.code == code]


MODELS_DICT = """
import torch
from torch import nn, optim

class Trainer:
    def __init__(self):
        self.models = {}
        self.models["encoder"] = nn.Linear(4, 4)
        self.models["decoder"] = nn.Linear(4, 4)
        self.models["discriminator"] = nn.Linear(4, 1)
        self.params, self.params_d = [], []
        for key in self.models.keys():
            if "discr" in key:
                self.params_d += list(self.models[key].parameters())
            else:
                self.params += list(self.models[key].parameters())
        self.opt = optim.Adam(self.params)
        self.opt_d = optim.Adam(self.params_d)

    def forward_pass(self, x):
        return self.models["decoder"](self.models["encoder"](x))

    def run(self, loader):
        for x in loader:
            out = self.forward_pass(x)
            fake = self.models["discriminator"](out)
            loss_d = fake.mean()
            loss_g = -fake.mean() + out.pow(2).mean()
            self.opt.zero_grad()
            loss_g.backward(retain_graph=True)
            self.opt.step()
            self.opt_d.zero_grad()
            loss_d.backward()
            self.opt_d.step()
"""


def test_dict_entries_are_modules_and_key_tests_split_the_owners():
    t = _names(MODELS_DICT)
    assert t.modules["self.models['decoder']"] == "param"
    assert t.optimizers["self.opt"].owns == frozenset({"self.models['encoder']", "self.models['decoder']"})
    assert t.optimizers["self.opt_d"].owns == frozenset({"self.models['discriminator']"})
    assert "pass the tests that fill `self.params`" in t.inferred["self.opt"]


def test_key_test_not_understood_leaves_the_owner_unknown():
    t = _names(MODELS_DICT.replace('if "discr" in key:', "if is_critic(key):"))
    assert t.optimizers["self.opt"].owns is None


def test_dict_models_run_by_a_helper_method_reach_the_stale_backward():
    found = _found(MODELS_DICT, "AD108")
    assert [f.line for f in found] == [33]
    assert "inferred: `self.opt` steps" in found[0].message
    # the discriminator's loss on a detached output: nothing the step changed
    fixed = MODELS_DICT.replace('fake = self.models["discriminator"](out)\n            loss_d = fake.mean()',
                                'fake = self.models["discriminator"](out)\n'
                                '            loss_d = self.models["discriminator"](out.detach()).mean()')
    assert fixed != MODELS_DICT
    assert _found(fixed, "AD108") == []


PHASES = """
import torch
from torch import nn, optim

def train_model(model, batches, optimizer):
    for labeled, unlabeled in batches:
        for phase in ("labeled", "unlabeled"):
            optimizer[0].zero_grad()
            if phase == "labeled":
                out, rec = model(labeled)
                loss = out.mean() + 0.0 * rec.mean()
            elif phase == "unlabeled":
                _, now = model(unlabeled)
                loss = (rec - unlabeled).pow(2).mean()
            if phase == "labeled":
                loss.backward(retain_graph=True)
                optimizer[0].step()
            elif phase == "unlabeled":
                loss.backward()
                optimizer[1].step()

net = nn.Linear(4, 4)
train_model(net, [], (optim.SGD(net.parameters(), lr=0.1), optim.SGD(net.parameters(), lr=0.01)))
"""


def test_tuple_of_optimizers_maps_through_the_call():
    t = _names(PHASES)
    assert t.optimizers["optimizer[0]"].owns == frozenset({"model"})
    assert "every call of this file passes" in t.inferred["optimizer[1]"]


def test_phase_arms_with_the_same_test_take_the_same_arm():
    found = _found(PHASES, "AD108")
    # only the unlabeled backward reads `rec` of the labeled pass, before optimizer[0] stepped
    assert [f.line for f in found] == [19]
    assert "in the previous iteration" in found[0].message
    fixed = PHASES.replace("_, now = model(unlabeled)", "_, rec = model(unlabeled)")
    assert _found(fixed, "AD108") == []


HISTORY = """
import torch

def fit(tensors, loss_function, optimizer=torch.optim.Adam):
    optimizer = optimizer(tensors)
    losses = []
    for it in range(10):
        optimizer.zero_grad()
        losses.append(loss_function(*tensors))
        losses[-1].backward(retain_graph=True)
        optimizer.step()
"""


def test_last_entry_of_a_loss_list_is_one_loss():
    ad104 = _found(HISTORY, "AD104")
    assert [f.line for f in ad104] == [10]
    assert "only by the backward on the list's last element" in ad104[0].message
    assert ad104[0].fix == "unsafe"
    ad102 = _found(HISTORY, "AD102")
    assert [f.line for f in ad102] == [9]
    assert ad102[0].fix == "none"  # `.detach()` there would break `losses[-1].backward()`
    assert "`optimizer` is an optimizer (its default is an optimizer class" in ad102[0].message


def test_last_entry_backwarded_without_retain_frees_what_the_list_keeps():
    src = HISTORY.replace("backward(retain_graph=True)", "backward()")
    assert _found(src, "AD102") == [] and _found(src, "AD104") == []


def test_loop_over_a_list_of_optimizers_steps():
    t = _names("""
        from torch import nn, optim
        models = [nn.Linear(2, 2), nn.Linear(2, 2)]
        optimizers = [optim.SGD(m.parameters(), lr=0.1) for m in models]
        opts = []
        for m in models:
            opts.append(optim.SGD(m.parameters(), lr=0.1))
        for opt in opts:
            opt.step()
    """)
    assert "models[]" in t.modules
    assert "opt" in t.optimizers and t.optimizers["opt"].owns is None


def test_entry_called_and_its_parameters_read_is_a_module():
    t = _names("""
        import torch
        nets = build()
        opt = torch.optim.Adam(nets["G"].parameters())
        out = nets["G"](torch.randn(2, 2))
    """)
    assert t.modules["nets['G']"] == "param"
    assert "nets['D']" not in t.modules
    assert t.optimizers["opt"].owns == frozenset({"nets['G']"})


def test_a_sum_kept_across_iterations_is_not_a_stale_graph():
    # `total = total + loss` backwarded with retain_graph: AD101/AD102's shape, not AD108's
    src = """
        import torch
        from torch import nn
        model = nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        total = 0
        for x in [torch.randn(2, 4) for _ in range(3)]:
            loss = model(x).pow(2).mean()
            total = total + loss
            opt.zero_grad()
            total.backward(retain_graph=True)
            opt.step()
    """
    assert _found(src, "AD108") == []


COMP_OPTS = """
import torch
from torch import nn

class Agent:
    def __init__(self):
        self.policy = nn.Linear(4, 2)
        self.critics = NETS
        self.critic_opts = OPTS
        self.policy_opt = torch.optim.Adam(self.policy.parameters())

    def update(self, obs, act, target):
        policy_loss = -self.critics[0](torch.cat([obs, self.policy(obs)], 1)).mean()
        q_loss = (self.critics[0](torch.cat([obs, act], 1)) - target).pow(2).mean()
        self.critic_opts[0].zero_grad()
        q_loss.backward()
        self.critic_opts[0].step()
        self.policy_opt.zero_grad()
        policy_loss.backward()
        self.policy_opt.step()
"""


def _comp(nets, opts):
    return COMP_OPTS.replace("NETS", nets).replace("OPTS", opts)


def test_optimizers_built_by_a_comprehension_step_the_list_they_iterate():
    for nets in ("nn.ModuleList([nn.Linear(6, 1) for _ in range(2)])", "[nn.Linear(6, 1), nn.Linear(6, 1)]",
                 "nn.ModuleList([nn.Linear(6, 1), nn.Linear(6, 1)])"):
        for opts in ("[torch.optim.Adam(c.parameters(), lr=1e-3) for c in self.critics]",
                     "[torch.optim.SGD(net.parameters(), 0.1) for net in self.critics]"):
            found = _found(_comp(nets, opts), "AD108")
            assert len(found) == 1 and found[0].line == 19, (nets, opts)
            assert "comprehension" in found[0].message and found[0].fix == "unsafe"


def test_comprehension_optimizers_not_over_the_list_own_nothing_known():
    nets = "nn.ModuleList([nn.Linear(6, 1) for _ in range(2)])"
    table = _names(_comp(nets, "[torch.optim.Adam(c.parameters()) for c in self.critics if c.training]"))
    assert "self.critic_opts[]" not in table.optimizers or table.optimizers["self.critic_opts[]"].owns is None
    # a comprehension over something else than the critics: no owner taken from it
    table = _names(_comp(nets, "[torch.optim.Adam(c.parameters()) for c in self.others]"))
    assert "self.critic_opts[]" not in table.optimizers or table.optimizers["self.critic_opts[]"].owns is None


def test_policy_loss_built_after_the_comprehension_optimizers_step_is_fine():
    src = _comp("nn.ModuleList([nn.Linear(6, 1) for _ in range(2)])",
                "[torch.optim.Adam(c.parameters()) for c in self.critics]")
    moved = src.replace("        policy_loss = -self.critics[0](torch.cat([obs, self.policy(obs)], 1)).mean()\n", "")
    moved = moved.replace("        self.policy_opt.zero_grad()\n",
                          "        policy_loss = -self.critics[0](torch.cat([obs, self.policy(obs)], 1)).mean()\n"
                          "        self.policy_opt.zero_grad()\n")
    assert moved != src and _found(moved, "AD108") == []


LOOP_FORWARD = """
import torch
from torch import nn

class Agent:
    def __init__(self):
        self.policy = nn.Linear(4, 2)
        self.critics = nn.ModuleList([nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1)) for _ in range(2)])
        self.critic_opts = [torch.optim.Adam(c.parameters()) for c in self.critics]
        self.policy_opt = torch.optim.Adam(self.policy.parameters())

    def update(self, obs, act, target):
        new_act = self.policy(obs)
        FORWARD
        policy_loss = -q.mean()
        for i in range(2):
            q_loss = (self.critics[i](torch.cat([obs, act], 1)) - target).pow(2).mean()
            self.critic_opts[i].zero_grad()
            q_loss.backward()
            STEP
        self.policy_opt.zero_grad()
        policy_loss.backward()
        self.policy_opt.step()
"""

FORWARDS = [
    "q = torch.min(*[critic(torch.cat([obs, new_act], 1)) for critic in self.critics])",
    "q = torch.cat([critic(torch.cat([obs, new_act], 1)) for critic in self.critics], 1)",
    "q = sum(critic(torch.cat([obs, new_act], 1)) for critic in self.critics)",
    "qs = []\n        for critic in self.critics:\n            qs.append(critic(torch.cat([obs, new_act], 1)))\n"
    "        q = torch.cat(qs, 1)",
]


def test_forward_through_the_variable_of_a_loop_over_the_critics_is_stale_after_their_step():
    for forward in FORWARDS:
        src = LOOP_FORWARD.replace("FORWARD", forward).replace("STEP", "self.critic_opts[i].step()")
        found = _found(src, "AD108")
        assert [f.line for f in found] == [src.splitlines().index("        policy_loss.backward()") + 1], forward


def test_loop_variable_forward_is_fine_when_nothing_it_runs_is_stepped():
    for forward in FORWARDS:
        src = LOOP_FORWARD.replace("FORWARD", forward).replace("STEP", "pass")
        assert _found(src, "AD108") == [], forward


def test_a_loop_variable_bound_elsewhere_is_not_an_entry():
    src = LOOP_FORWARD.replace("FORWARD", FORWARDS[0]).replace("STEP", "self.critic_opts[i].step()")
    assert _names(src).entry_of == {"c": "self.critics", "critic": "self.critics"}
    bound = src.replace("        new_act = self.policy(obs)\n", "        new_act = self.policy(obs)\n        critic = None\n")
    assert "critic" not in _names(bound).entry_of


def test_zip_of_optimizers_and_critics_gives_the_loop_variable_the_lists_owner():
    src = LOOP_FORWARD.replace("FORWARD", FORWARDS[0]).replace("STEP", "pass")
    src = src.replace("        self.policy_opt.zero_grad()\n",
                      "        for c_opt, net in zip(self.critic_opts, self.critics):\n"
                      "            c_opt.step()\n        self.policy_opt.zero_grad()\n")
    table = _names(src)
    assert table.optimizers["c_opt"].owns == frozenset({"self.critics"}) and table.entry_of["net"] == "self.critics"
    found = _found(src, "AD108")
    assert len(found) == 1 and "which entry steps which is not followed" in found[0].message


TRACKER = '''
class Tracker:
    def __init__(self):
        self.total = 0.0
        self.n = 0

    def update(self, v):
        self.total += float(v)
        self.n += 1

    def mean(self):
        return self.total / max(self.n, 1)
'''


def test_a_project_class_with_a_mean_method_does_not_take_over_tensor_means(tmp_path):
    # `fake.mean()` is the tensor's method even when a class beside the script defines `mean`
    (tmp_path / "tracker.py").write_text(TRACKER)
    path = str(tmp_path / "case.py")
    findings, _, _ = check_source(textwrap.dedent(MODELS_DICT), path, all_rules(), Options())
    assert [f.line for f in findings if f.code == "AD108"] == [33]
