"""A list bound to a literal and grown by `append`/`extend` keeps each element at its
position: unpacking it gives each name its own element (MrSyee's A2C notebook kept
`[state, log_prob]` on self, extended it with the reward, and unpacked all five;
the critic's loss read the state only, and was reported as freeing the log-prob)."""
import pathlib

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

CASE = pathlib.Path(__file__).parent.parent / "corpus" / "AD105" / "ok_transition_list_unpacked.py"


def _codes(text, name="train.py"):
    findings, _, _ = check_source(text, name, all_rules(), Options())
    return [(f.code, f.line) for f in findings if f.code.startswith("AD1")]


def test_unpacked_transition_is_not_reported():
    assert _codes(CASE.read_text()) == []


def test_critic_reading_the_log_prob_is_still_reported():
    # the critic's backward frees the actor's graph, which the policy loss needs (it raises)
    text = CASE.read_text().replace("value = self.critic(state)\n", "value = self.critic(state) + log_prob\n")
    assert {"AD103", "AD105"} & {code for code, _ in _codes(text)}


def test_element_appended_with_a_graph_is_still_reported():
    # the reward appended is the log-probability itself, and the critic's loss adds it
    text = CASE.read_text().replace("self.transition.extend([next_obs, float(action)])",
                                    "self.transition.extend([next_obs, self.transition[1]])")
    text = text.replace("value = self.critic(state)\n", "value = self.critic(state) + reward\n")
    assert {"AD103", "AD105"} & {code for code, _ in _codes(text)}


def test_list_kept_from_the_previous_iteration_is_cut_at_its_store():
    text = '''
import torch
from torch import nn

cell = nn.LSTMCell(3, 3)
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
state = [torch.zeros(1, 3), torch.zeros(1, 3)]
for step in range(4):
    h, c = state
    h, c = cell(torch.randn(1, 3), (h, c))
    state = [h, c]
    loss = h.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
'''
    assert ("AD101", 11) in _codes(text)
