"""A module whose forward returns a torch.distributions object: `.sample()`
of what it returns draws without gradient (issue 8: rollouts of such a
policy were reported as keeping a graph, with a safe .detach())."""
import textwrap

from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.registry import by_code

POLICY = """\
import torch
import torch.nn as nn
from torch.distributions import Categorical, Normal


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        {body}
"""

LOOP = """
policy = Policy()
opt = torch.optim.SGD(policy.parameters(), lr=0.1)
total = 0
for episode in range(4):
    state = torch.zeros(4, 3)
    logps = []
    for t in range(5):
        {draw}
        logps.append(dist.log_prob(action))
        state = state + action.float().sum(-1, keepdim=True)
    total = total + state.sum()
    loss = -torch.stack(logps).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def _summary(body):
    return summarize(POLICY.format(body=body))["Policy.forward"]


def test_forward_returning_a_distribution():
    assert _summary("return Normal(self.fc(x), 1.0)").distribution
    assert _summary("dist = Categorical(logits=self.fc(x))\n        return dist").distribution


def test_forward_returning_a_tensor_too_is_not_one():
    found = _summary("if x.dim() > 3:\n            return self.fc(x)\n        return Normal(self.fc(x), 1.0)")
    assert not found.distribution


def test_tuple_positions():
    found = _summary("return Categorical(logits=self.fc(x)), self.fc(x).sum(-1)")
    assert not found.distribution and found.distribution_elems == (0,)


def _ad101(body, draw):
    text = POLICY.format(body=body) + textwrap.dedent(LOOP).replace("{draw}", draw)
    found, _, _ = check_source(text, "policy.py", [by_code()["AD101"]], Options())
    return [f.message for f in found]


def test_sampled_rollout_keeps_no_graph():
    assert _ad101("return Normal(self.fc(x), 1.0)", "dist = policy(state)\n        action = dist.sample()") == []
    assert _ad101("return Categorical(logits=self.fc(x)), self.fc(x).sum(-1)",
                  "dist, value = policy(state)\n        action = dist.sample()") == []


def test_rsample_still_reported():
    found = _ad101("return Normal(self.fc(x), 1.0)", "dist = policy(state)\n        action = dist.rsample()")
    assert any("`total`" in m for m in found), found
