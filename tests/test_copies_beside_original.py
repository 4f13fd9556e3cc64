"""A copy of the stepped model beside an original that the same code also
runs (PPO's old policy, a distillation teacher, a target network) is no
sign that the original never learns: the loss may reach the original by a
helper or wrapper the walk does not follow. AD109 said "never learns" on
lifelong_rl's policy gradient and NNI's distillation example (sweep)."""
import textwrap

from autodetach.engine import check_code

PPO = """
import copy
import torch
import torch.nn as nn


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 2)

    def forward(self, obs):
        return self.lin(obs)

    def get_log_probs(self, obs):
        return torch.log_softmax(self.lin(obs), -1)


class Trainer:
    def __init__(self):
        self.policy = Policy()
        self.optim = torch.optim.Adam(self.policy.parameters())

    def objective(self, obs, old_policy):
        log_probs = self.policy.get_log_probs(obs)
        old = old_policy.get_log_probs(obs)
        return (log_probs - old).mean()

    def train(self, obs):
        old_policy = copy.deepcopy(self.policy)
        {run}
        for epoch in range(3):
            loss = -self.objective(obs, old_policy)
            self.optim.zero_grad()
            loss.backward()
            self.optim.step()
"""


def test_an_old_policy_beside_the_trained_one_is_not_reported():
    src = textwrap.dedent(PPO.format(run="print(self.policy(obs).sum().item())"))
    assert [f.code for f in check_code(src, select=["AD109"])] == []


def test_a_loss_on_the_copy_alone_is_still_reported():
    meta = textwrap.dedent('''
        import copy
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for step in range(3):
            fast = copy.deepcopy(model)
            loss = fast(torch.randn(2, 4)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    ''')
    assert [f.code for f in check_code(meta, select=["AD109"])] == ["AD109"]
