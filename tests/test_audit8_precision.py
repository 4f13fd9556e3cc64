"""Precision on unseen code (audit8).

An actor-critic notebook (an A2C agent) keeps `[state, log_prob]` on itself
when it acts, only outside test mode (`if not self.is_test:`), extends the list
with the environment's answer and unpacks it in its update. The state is raw
data, so the critic's backward frees nothing the actor's loss needs; but the
list an earlier iteration stored (still held where the `if` stores none) was
read as one graph at every position, and `state` hung from `log_prob`: an
AD105 (unsafe `retain_graph=True`)."""
import os
import textwrap

import autodetach
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

CORPUS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "corpus")


def _text(code, name):
    with open(os.path.join(CORPUS, code, name), encoding="utf-8") as fh:
        return fh.read()


def _found(src):
    return [(f.code, f.line) for f in autodetach.check_code(textwrap.dedent(src), select=["AD1"])]


def test_raw_state_beside_log_prob_in_a_list_kept_under_an_if_shares_no_graph():
    assert _found(_text("AD105", "ok_transition_list_under_mode_flag.py")) == []


def test_an_encoded_state_in_that_list_is_still_shared_by_both_losses():
    # the critic's backward frees the encoder's graph, which the actor's loss walks again
    src = _text("AD103", "transition_list_shared_encoder.py")
    assert {code for code, _ in _found(src)} == {"AD103"}
    # after the fix, neither AD103 nor AD105 is left (the memory keeps the detached observation)
    fixed = _text("AD103", "transition_list_shared_encoder.fixed.py")
    assert not {"AD103", "AD105"} & {code for code, _ in _found(fixed)}


G_STEP = """
import torch
import torch.nn as nn

netG = nn.Linear(8, 16)
netD = nn.Sequential(nn.Linear(16, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optD = torch.optim.Adam(netD.parameters())
optG = torch.optim.Adam(netG.parameters())


def step(real):
    fake = netG(torch.randn(4, 8))
    netD.zero_grad()
    errD = criterion(netD(real), torch.ones(4, 1)) + criterion(netD(fake.detach()), torch.zeros(4, 1))
    errD.backward()
    optD.step()
    netG.zero_grad()
    errG = criterion(netD(fake.detach()), torch.ones(4, 1)){extra}
    errG.backward()
    optG.step()
"""


def test_a_cut_generator_step_is_reported():
    assert "AD109" in {code for code, _ in _found(G_STEP.format(extra=""))}


def test_a_loss_on_a_name_nothing_binds_is_not_said_to_starve_the_model():
    # a notebook's loss reads `u`, assigned in no cell (NameError, or code out of sight): what the
    # loss reaches is not known
    assert "AD109" not in {code for code, _ in _found(G_STEP.format(extra=" + u.pow(2).mean()"))}


def test_results_unpacked_from_a_helper_are_not_a_model_run_on_the_cut_value():
    # `tau, expected = quantile_targets(dist, ...)`: `tau` from `dist.data`, `expected` from the target
    # network; the loss trains the online network through `expected - dist`
    assert _found(_text("AD109", "ok_quantile_targets_from_helper.py")) == []
    # a scorer run on `dist.detach()` in the unpacking statement itself is still a lost term
    found = _found(_text("AD109", "flag_quantile_penalty_on_detached_estimate.py"))
    assert [code for code, _ in found] == ["AD109"]


def test_a_loss_hanging_from_a_list_another_method_fills_may_reach_the_stepped_modules():
    assert _found(_text("AD109", "ok_loss_from_list_another_method_fills.py")) == []


def _project(tmp_path, case):
    """Copy a corpus project case into tmp_path; its files' findings (code, fix)."""
    src = os.path.join(CORPUS, "AD104", case)
    for name in os.listdir(src):
        with open(os.path.join(src, name), encoding="utf-8") as fh:
            (tmp_path / name).write_text(fh.read(), encoding="utf-8")
    path = tmp_path / "train.py"
    rules = [rule for rule in all_rules() if rule.code.startswith("AD1")]
    found, _, _ = check_source(path.read_text(encoding="utf-8"), str(path), rules, Options())
    return [(f.code, f.fix) for f in found]


def test_kl_of_a_posterior_the_agent_keeps_shares_the_critics_graph(tmp_path):
    # oyster's PEARL: `kl_div = self.agent.compute_kl_div()` reads what `self.agent(obs, context)`
    # stored on the agent, and the critic runs on the task code that call sampled: the retain is needed
    # (dropping it raises "backward through the graph a second time"); an agent handed in, or built here
    assert _project(tmp_path, "ok_posterior_kl_on_agent_in_project") == []


def test_kl_of_a_posterior_on_an_agent_built_here(tmp_path):
    assert _project(tmp_path, "ok_posterior_kl_on_own_agent") == []


def test_a_critic_on_the_detached_task_code_leaves_the_retain_unneeded(tmp_path):
    assert [code for code, _ in _project(tmp_path, "posterior_kl_on_agent_in_project")] == ["AD104"]
