"""Session 32, recall63: a loop that trains weights by hand (`w -= lr * w.grad`) is a
training loop of its own, whatever optimizer steps later in the file; a `for i in
range(1)` block runs once, so nothing crosses its iterations."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _ad1(tmp_path, src):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(src))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return sorted((f.code, f.line) for f in findings if f.code.startswith("AD1"))


HAND = """
import torch

w = torch.randn(8, 1, requires_grad=True)
losses = []
for i in range(5):
    x = torch.randn(4, 8)
    loss = (x @ w).pow(2).mean()
    losses.append(loss)
    loss.backward()
    UPDATE
LATER
"""

ADAM_LATER = """
opt = torch.optim.Adam([w], lr=1e-3)
for i in range(5):
    loss = (torch.randn(4, 8) @ w).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_hand_update_makes_each_iteration_a_step(tmp_path):
    for update in ("with torch.no_grad():\n        w -= 0.1 * w.grad",
                   "w.data.sub_(0.1 * w.grad.data)",
                   "w.data = w.data - 0.1 * w.grad"):
        src = HAND.replace("UPDATE", update).replace("LATER", ADAM_LATER)
        assert _ad1(tmp_path, src) == [("AD102", 9)], update


def test_hand_update_of_listed_weights(tmp_path):
    src = HAND.replace("w = torch.randn(8, 1, requires_grad=True)",
                       "w = torch.randn(8, 1, requires_grad=True)\nparams = [w]")
    src = src.replace("UPDATE", "for p in params:\n        p.data -= 0.1 * p.grad").replace("LATER", ADAM_LATER)
    assert _ad1(tmp_path, src) == [("AD102", 10)]


def test_without_an_update_the_later_step_still_makes_sub_steps(tmp_path):
    # no update in the loop, a step after it: the iterations build one step (unchanged)
    src = HAND.replace("UPDATE", "pass").replace("LATER", "opt = torch.optim.SGD([w], lr=0.1)\nopt.step()")
    assert _ad1(tmp_path, src) == []


ASCENT = """
import torch
import torch.nn as nn
import torch.nn.functional as F

net = nn.Linear(4, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(3):
    x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    x_adv = x.clone().requires_grad_(True)
    losses = []
    for k in range(5):
        loss = F.cross_entropy(net(x_adv), y)
        losses.append(loss)
        loss.backward()
        x_adv.data += 0.01 * x_adv.grad.sign()
    opt.zero_grad()
    F.cross_entropy(net(x_adv.detach()), y).backward()
    opt.step()
"""


def test_an_input_updated_per_batch_is_no_step(tmp_path):
    assert _ad1(tmp_path, ASCENT) == []


ONCE = """
import torch
import torch.nn as nn
import torch.nn.functional as F

gen, disc = nn.Linear(4, 4), nn.Linear(4, 1)
opt_g = torch.optim.Adam(gen.parameters())
opt_d = torch.optim.Adam(disc.parameters())


def train_batch(x):
    for i in RANGE:
        pert = gen(x)
        adv = pert + x
        opt_d.zero_grad()
        F.mse_loss(disc(adv.detach()), torch.zeros(8, 1)).backward()
        opt_d.step()
    for i in RANGE:
        opt_g.zero_grad()
        loss_fake = F.mse_loss(disc(adv), torch.ones(8, 1))
        loss_fake.backward(retain_graph=True)
        loss_pert = pert.norm()
        loss_pert.backward()
        opt_g.step()
    return loss_fake.item()


for step in range(3):
    train_batch(torch.randn(8, 4))
"""


def test_range_one_runs_once(tmp_path):
    assert _ad1(tmp_path, ONCE.replace("RANGE", "range(1)")) == []
    assert _ad1(tmp_path, ONCE.replace("RANGE", "range(0, 1)")) == []
    # two iterations: the second G block backwards the first one's freed graph
    assert ("AD101", 13) in _ad1(tmp_path, ONCE.replace("RANGE", "range(2)"))


def test_range_one_inside_an_epoch_loop_keeps_outer_findings(tmp_path):
    src = """
    import torch
    import torch.nn as nn

    net = nn.Linear(4, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    total = 0
    for epoch in range(3):
        for i in range(1):
            loss = net(torch.randn(2, 4)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss
    print(total)
    """
    assert _ad1(tmp_path, src) == [("AD102", 14)]


FIT = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(1, 1)

    def forward(self, x):
        return self.fc(x)


def fit(net, x, y, create_graph=False):
    pred = net(x)
    loss = F.mse_loss(pred, y)
    loss.backward(create_graph=CREATE, retain_graph=True)
    return pred.detach()


net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(4, 1)
    opt.zero_grad()
    pred = fit(net, x, x * 2)
    opt.step()
"""


def test_retain_next_to_a_create_graph_flag_is_judged(tmp_path):
    # `create_graph=flag`: true, it retains by itself; false, nothing walks the graph again
    assert _ad1(tmp_path, FIT.replace("CREATE", "create_graph")) == [("AD104", 19)]
    # a literal create_graph=True: the retain changes nothing, and is left alone (unchanged)
    assert _ad1(tmp_path, FIT.replace("CREATE", "True")) == []
    # the caller backwards what the helper returns again: needed when the flag is false
    src = FIT.replace("CREATE", "create_graph").replace("return pred.detach()", "return pred")
    src = src.replace("    opt.step()", "    pred.pow(2).mean().backward()\n    opt.step()")
    assert _ad1(tmp_path, src) == []


def test_create_graph_flag_on_an_attribute(tmp_path):
    src = FIT.replace("CREATE", "net.second_order")
    assert _ad1(tmp_path, src) == [("AD104", 19)]
