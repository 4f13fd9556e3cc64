"""analysis.negated_terms: a multiplier's ascent pass on a term that another loss adds (AD103, no fix)."""
import textwrap

from autodetach import check_code

HEAD = """
import torch
from torch import nn
critic = nn.Linear(4, 1); log_alpha = nn.Parameter(torch.zeros(1))
opt_c = torch.optim.SGD(critic.parameters(), lr=0.1)
opt_a = torch.optim.SGD([log_alpha], lr=0.1)
for i in range(3):
    q = critic(torch.randn(8, 4))
    opt_c.zero_grad()
"""


def _ad103(body):
    src = textwrap.dedent(HEAD) + textwrap.indent(textwrap.dedent(body), "    ")
    return [f for f in check_code(src, select=["AD103"]) if f.code == "AD103"]


def test_inline_pass_cancels_the_added_term():
    found = _ad103("""
        penalty = log_alpha.exp() * (q.logsumexp(0) - q.mean() - 1.0)
        opt_a.zero_grad()
        (-penalty.mean()).backward(retain_graph=True)
        opt_a.step()
        loss = q.pow(2).mean()
        loss += penalty.sum()
        loss.backward()
        opt_c.step()
    """)
    assert len(found) == 1 and "so the two cancel" in found[0].message
    assert "`critic`" in found[0].message and "log_alpha" not in found[0].message.split("so the two")[0]
    assert found[0].fix_title == ""  # report only: the multiplier's loss must be rebuilt


def test_zero_grad_between_clears_the_leak():
    assert _ad103("""
        penalty = log_alpha.exp() * (q.logsumexp(0) - q.mean() - 1.0)
        opt_a.zero_grad()
        (-penalty.mean()).backward(retain_graph=True)
        opt_a.step()
        opt_c.zero_grad()
        (q.pow(2).mean() + penalty.sum()).backward()
        opt_c.step()
    """) == []


def test_term_of_the_multiplier_alone_is_silent():
    assert _ad103("""
        gap = q.logsumexp(0) - q.mean() - 1.0
        penalty = log_alpha.exp() * gap.detach()
        opt_a.zero_grad()
        (-penalty.mean()).backward(retain_graph=True)
        opt_a.step()
        (q.pow(2).mean() + penalty.sum()).backward()
        opt_c.step()
    """) == []


def test_subtracted_term_is_not_read_as_added():
    assert _ad103("""
        penalty = log_alpha.exp() * (q.logsumexp(0) - q.mean() - 1.0)
        opt_a.zero_grad()
        (-penalty.mean()).backward(retain_graph=True)
        opt_a.step()
        print((q.pow(2).mean() + penalty.sum()).item())
    """) == []


HELPER = """
import torch


class Algo:
    def __init__(self, critic, log_alpha, critic_optim, alpha_optim):
        self.critic, self.log_alpha = critic, log_alpha
        self.critic_optim, self.alpha_optim = critic_optim, alpha_optim

    def compute_loss(self, obs):
        q = self.critic(obs)
        penalty = self.log_alpha.exp() * (q.logsumexp(0) - q.mean())
        self.update_alpha({arg})
        return q.pow(2).mean() + penalty.sum()

    def update_alpha(self, penalty):
        self.alpha_optim.zero_grad()
        loss = -penalty.mean()
        loss.backward(retain_graph=True)
        self.alpha_optim.step()
"""


def test_helper_pass_on_a_handed_term_says_what_it_inferred():
    found = [f for f in check_code(HELPER.format(arg="penalty"), select=["AD103"]) if f.code == "AD103"]
    assert len(found) == 1
    assert "inferred: " in found[0].message and "`compute_loss` is taken to return the sum" in found[0].message


def test_helper_handed_a_detached_term_is_silent():
    assert [f for f in check_code(HELPER.format(arg="penalty.detach()"), select=["AD103"])
            if f.code == "AD103"] == []


def test_reductions_written_as_torch_functions():
    found = _ad103("""
        penalty = log_alpha.exp() * (q.logsumexp(0) - q.mean() - 1.0)
        opt_a.zero_grad()
        alpha_loss = (-penalty).mean(dim=0)
        alpha_loss.backward(retain_graph=True)
        opt_a.step()
        critic_loss = q.pow(2).mean() + torch.sum(penalty)
        critic_loss.backward()
        opt_c.step()
    """)
    assert len(found) == 1 and "`q.pow(2).mean() + torch.sum(penalty)` (line 16)" in found[0].message
