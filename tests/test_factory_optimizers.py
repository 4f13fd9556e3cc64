"""analysis.factory_optimizers: optimizers a factory method of the class builds."""
import textwrap

import libcst as cst

from autodetach.context import FileContext


def _names(src):
    src = textwrap.dedent(src)
    return FileContext(cst.parse_module(src), "m.py", src).analysis.names


AGENT = """
    import torch
    from torch import nn


    class Agent(nn.Module):
        def __init__(self):
            super().__init__()
            self.policy = nn.Linear(4, 2)
            self.critics = nn.ModuleList([nn.Linear(6, 1) for _ in range(2)])
            self.policy_opt = self.{meth}("adam", self.policy, 1e-3)
            self.critic_opts = [self.{meth}("adam", critic, 1e-3) for critic in self.critics]

        def {meth}(self, kind, model, lr):
            return {ret}

        def update(self, losses):
            for loss, opt in zip(losses, self.critic_opts):
                opt.step()
"""


def test_factory_steps_the_module_it_is_handed():
    table = _names(AGENT.format(meth="_get_optimizer",
                                ret="make(kind)(filter(lambda p: p.requires_grad, model.parameters()), lr=lr)"))
    assert table.optimizers["self.policy_opt"].owns == frozenset({"self.policy"})
    assert table.optimizers["self.critic_opts[]"].owns == frozenset({"self.critics"})
    assert table.optimizers["opt"].owns == frozenset({"self.critics"})  # the zip loop's variable
    assert "optimizer factory" in table.inferred["self.policy_opt"]


def test_not_a_factory_by_name_or_return():
    table = _names(AGENT.format(meth="_wrap", ret="make(kind)(model.parameters(), lr=lr)"))
    assert "self.policy_opt" not in table.optimizers  # the name does not say optimizer
    table = _names(AGENT.format(meth="_get_optimizer", ret="make(kind)(lr=lr)"))
    assert "self.policy_opt" not in table.optimizers  # built from no parameters
    assert "self.critic_opts[]" not in table.optimizers


SAC = """
    import torch
    from torch import nn


    class Agent:
        def __init__(self):
            self.policy = nn.Linear(4, 2)
            self.critics = nn.ModuleList([nn.Linear(6, 1) for _ in range(2)])
            self.policy_opt = torch.optim.Adam(self.policy.parameters())
            self.critic_opts = [torch.optim.Adam(c.parameters()) for c in self.critics]

        def _perform_update(self, loss, opt):
            opt.zero_grad()
            loss.backward()
            opt.step()

        def _policy_loss(self, obs, act):
            return -torch.min(*[c(torch.cat([obs, act], -1)) for c in self.critics]).mean()

        def _critic_losses(self, obs, act, target):
            return [((c(torch.cat([obs, act], -1)) - target) ** 2).mean() for c in self.critics]

        def update(self, obs, act, target):
            for _ in range(3):
                policy_loss = self._policy_loss(obs, self.policy(obs))
                critic_losses = self._critic_losses(obs, act, target)
                for critic_loss, critic_opt in zip(critic_losses, self.critic_opts):
                    self._perform_update(critic_loss, critic_opt)
                self._perform_update(policy_loss, self.policy_opt)
"""


def test_loss_helper_reducing_entries_is_walked():
    from autodetach import check_code

    found = check_code(textwrap.dedent(SAC), select=["AD1"])
    codes = sorted(f.code for f in found)
    # the policy loss (the minimum over the critics) is backwarded after their steps;
    # the per-critic list is not read as one graph reused by every iteration (no AD107)
    assert codes == ["AD108"], [f.message for f in found]
