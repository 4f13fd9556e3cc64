"""A helper with no backward of its own that grows a list bound outside it
(`policy.saved_log_probs.append(...)`, a module-level `saved.append(...)`) is
walked at its call (analysis.global_stores), and the finding points at that
store, not at a list an inner loop of the same iteration builds from it."""
from autodetach import check_code

AGENT = """
import torch
import torch.nn as nn

fc = nn.Linear(4, 2)
opt = torch.optim.SGD(fc.parameters(), lr=0.1)
saved = []


def act(x):
    out = fc(x).sum()
    saved.append(out)
    return out.item()


def learn():
    terms = []
    for value in saved:
        terms.append(-value)
    loss = torch.stack(terms).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()


for episode in range(3):
    CLEAR
    for t in range(4):
        act(torch.randn(4))
    learn()
"""


def _found(src):
    return [(f.code, f.line, f.fix) for f in check_code(src)]


def test_a_module_list_a_helper_grows_and_nobody_clears_is_reported_at_the_append():
    found = _found(AGENT.replace("CLEAR", "pass"))
    assert found == [("AD101", 12, "none")]


def test_the_message_names_the_kept_list():
    (f,) = check_code(AGENT.replace("CLEAR", "pass"))
    assert "stored in `saved` (line 12)" in f.message and "no fix is offered" in f.message


def test_the_list_cleared_every_episode_is_left_alone():
    assert _found(AGENT.replace("CLEAR", "saved.clear()")) == []


def test_a_helper_that_grows_only_its_own_list_is_not_walked_for_it():
    src = AGENT.replace("CLEAR", "pass").replace("    saved.append(out)\n", "    mine = []\n    mine.append(out)\n")
    assert _found(src) == []


def test_a_helper_that_stores_detached_values_is_left_alone():
    src = AGENT.replace("CLEAR", "pass").replace("saved.append(out)", "saved.append(out.detach())")
    assert _found(src) == []


RECORD = """
from collections import namedtuple
import torch
import torch.nn as nn

Pair = namedtuple("Pair", ["a", "b"])
fc = nn.Linear(4, 2)
opt = torch.optim.SGD(fc.parameters(), lr=0.1)
saved = []
for episode in range(3):
    for t in range(4):
        out = fc(torch.randn(4))
        saved.append(Pair(out[0], out[1]))
    loss = sum(p.a + p.b for p in saved)
    opt.zero_grad()
    loss.backward()
    opt.step()
    CLEAR
"""


def test_a_namedtuple_of_the_module_holds_the_graph_of_what_it_is_given():
    assert _found(RECORD.replace("CLEAR", "pass")) == [("AD101", 13, "none")]


def test_a_namedtuple_list_cleared_after_the_step_is_left_alone():
    assert _found(RECORD.replace("CLEAR", "saved.clear()")) == []


def test_a_namedtuple_of_detached_values_is_left_alone():
    src = RECORD.replace("CLEAR", "pass").replace("Pair(out[0], out[1])", "Pair(out[0].detach(), out[1].item())")
    assert _found(src) == []


AGENT_CLASS = """
import torch
import torch.nn as nn


class Agent:
    def __init__(self):
        self.net = nn.Linear(4, 2)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.outs = []

    def act(self, x):
        out = self.net(x).sum()
        self.outs.append(out)
        return out.item()

    def learn(self):
        loss = torch.stack(self.outs).sum()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        RESET


agent = Agent()
for episode in range(3):
    for t in range(4):
        agent.act(torch.randn(4))
    agent.learn()
    CALLER
"""


def _agent(reset="pass", caller="pass"):
    return _found(AGENT_CLASS.replace("RESET", reset).replace("CALLER", caller))


def test_a_method_that_grows_a_list_on_its_object_is_walked_at_the_call():
    assert _agent() == [("AD101", 14, "none")]


def test_the_list_reset_by_the_learning_method_is_left_alone():
    assert _agent(reset="self.outs = []") == []


def test_a_caller_that_touches_the_list_itself_is_not_second_guessed():
    # the walk keeps the method's state as `self.outs`: the caller's `agent.outs` would go unseen
    assert _agent(caller="agent.outs.clear()") == []
    assert _agent(caller="agent.outs = []") == []


BUFFER = """
import torch
import torch.nn as nn


class PPO:
    def __init__(self):
        self.net = nn.Linear(4, 2)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.data = []

    def get_action(self, x):
        prob = self.net(x).softmax(-1)[0]
        return 0, prob

    def put_data(self, transition):
        self.data.append(transition)

    def make_batch(self):
        probs = torch.tensor([[t[1]] for t in self.data])
        RESET
        return probs

    def train_net(self):
        probs = self.make_batch()
        loss = (self.net(torch.randn(4)).sum() * probs.sum())
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


model = PPO()
for step in range(20):
    a, prob = model.get_action(torch.randn(4))
    model.put_data((a, prob))
    if (step + 1) % 5 == 0:
        model.train_net()
"""


def test_a_buffer_emptied_by_a_helper_that_is_not_walked_is_left_alone():
    # `make_batch` empties `self.data` every five steps, but nothing walks it: the graphs are not
    # known to be kept for ever, so `put_data` is not walked for them (a bounded hold)
    assert _found(BUFFER.replace("RESET", "self.data = []")) == []


HISTORY = """
import torch
import torch.nn as nn

net = nn.Linear(4, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
history = []


def remember(t):
    history.append(t)


for step in range(20):
    out = net(torch.randn(4)).sum()
    remember((step, out))
    loss = out * 2
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_a_stored_parameter_gets_no_detach():
    # `t` is the caller's tuple here: `.detach()` of it would raise, and a cut in the helper cuts for every caller
    found = check_code(HISTORY)
    assert [(f.code, f.line, f.fix) for f in found] == [("AD101", 11, "none")]
    assert "`t` is a parameter of `remember`" in found[0].message
