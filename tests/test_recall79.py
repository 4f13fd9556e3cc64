"""Issue 8, recall79. AD103: a critic's pass that walks a kept graph into the
model it judges (analysis/leaked_passes.py): the roles come from where each
optimizer's zero_grad() stands, not from names; reported without a fix.
Optimizers a method of the class returns into `self` attributes
(analysis/returned_optimizers.py)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.findings import NONE
from autodetach.registry import all_rules


def _found(src: str, code: str, path: str = "train.py"):
    rules = [r for r in all_rules() if r.code == code]
    found, _, _ = check_source(textwrap.dedent(src), path, rules, Options())
    return [(f.line, f.fix, f.message) for f in found]


# a trainer whose optimizers come from a method; names say nothing of roles
TRAINER = """
import torch
from torch import nn


class Runner:
    def __init__(self):
        self.net_a = nn.Linear(4, 4)
        self.net_b = nn.Linear(4, 1)
        self.first, self.second = self.build()

    def build(self):
        one = torch.optim.Adam(self.net_a.parameters())
        two = torch.optim.Adam(self.net_b.parameters())
        return one, two

    def fit(self, batches):
        for x in batches:
            out = self.net_a(x)
            judged = self.net_b(out)
            main = (out - x).abs().mean() - judged.mean()
            side = torch.relu(1 + judged).mean() + torch.relu(1 - self.net_b(x)).mean()
            self.first.zero_grad()
            main.backward(retain_graph=True)
            {between}
            side.backward()
            {after}
            self.first.step()
            self.second.step()
"""


def test_critic_pass_into_the_judged_model_is_reported_without_fix():
    found = _found(TRAINER.format(between="self.second.zero_grad()", after="pass"), "AD103")
    assert [(line, fix) for line, fix, _ in found] == [(26, NONE)]
    msg = found[0][2]
    assert "into `self.net_a`" in msg and "`self.first.step()`" in msg and "`judged`" in msg
    assert "inferred: which pass is the critic's" in msg and "Not fixed" in msg


def test_the_first_pass_trains_both_models_no_role_evidence():
    # nothing clears what the first pass puts into net_b: no pass is kept apart from it
    assert _found(TRAINER.format(between="pass", after="pass"), "AD103") == []


def test_the_judged_model_cleared_before_its_step_is_the_discarded_pass():
    # net_a's gradients from both are cleared before its step: the known safe detach (or nothing), not a leak
    found = _found(TRAINER.format(between="self.second.zero_grad()", after="self.first.zero_grad()"), "AD103")
    assert all("walks the graph" not in msg for _, _, msg in found)


def test_one_optimizer_over_both_models_is_left_alone():
    src = TRAINER.replace("return one, two", "return torch.optim.Adam(list(self.net_a.parameters()) + "
                          "list(self.net_b.parameters())), two")
    src = src.replace("self.first, self.second = self.build()", "self.first, self.second = self.build()\n"
                      "        self.second = self.first")
    assert _found(src.format(between="self.second.zero_grad()", after="pass"), "AD103") == []


FUNCTION = """
import torch
from torch import nn


def fit(encoder, scorer, data):
    enc_opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
    score_opt = torch.optim.SGD(scorer.parameters(), lr=0.1)
    for x in data:
        z = encoder(x)
        s = scorer(z)
        enc_loss = z.pow(2).mean() - s.mean()
        score_loss = s.pow(2).mean()
        enc_opt.zero_grad()
        enc_loss.backward(retain_graph=True)
        score_opt.zero_grad()
        score_loss.backward()
        enc_opt.step()
        score_opt.step()
"""


def test_free_function_with_optimizers_built_inside():
    found = _found(FUNCTION, "AD103")
    assert [(line, fix) for line, fix, _ in found] == [(17, NONE)]
    assert "into `encoder`" in found[0][2]


def test_detached_critic_input_is_left_alone():
    src = FUNCTION.replace("score_loss = s.pow(2).mean()", "score_loss = scorer(z.detach()).pow(2).mean()")
    src = src.replace("enc_loss.backward(retain_graph=True)", "enc_loss.backward()")
    assert _found(src, "AD103") == []


def test_returned_optimizers_own_what_their_constructors_say():
    src = TRAINER.format(between="self.second.zero_grad()", after="pass")
    found = _found(src, "AD103")
    # `self.first` is known to own `self.net_a` from `build`'s constructor: no "paired by name" inference
    assert "paired by name" not in found[0][2]


# AD109: a loss computed with a copy of the stepped model (analysis/copied_modules.py)

COPY_LOOP = """
import copy
import torch
from torch import nn

net = nn.Linear(4, 1)
outer = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    twin = {make}
    out = twin(torch.randn(2, 4)).pow(2).mean()
    outer.zero_grad()
    out.backward()
    {hand}
    outer.step()
"""


def test_deepcopy_loss_starves_the_original():
    found = _found(COPY_LOOP.format(make="copy.deepcopy(net)", hand="pass"), "AD109")
    assert [(line, fix) for line, fix, _ in found] == [(9, NONE)]
    assert "a copy of `net`" in found[0][2] and "inferred" not in found[0][2]


def test_gradients_handed_over_by_hand_are_left_alone():
    hand = "for p, q in zip(net.parameters(), twin.parameters()): p.grad = q.grad"
    assert _found(COPY_LOOP.format(make="copy.deepcopy(net)", hand=hand), "AD109") == []


def test_loss_on_the_original_beside_a_copy_is_left_alone():
    src = COPY_LOOP.format(make="copy.deepcopy(net)", hand="pass").replace(
        "out = twin(torch.randn(2, 4)).pow(2).mean()",
        "out = (net(torch.randn(2, 4)) - twin(torch.randn(2, 4)).detach()).pow(2).mean()")
    assert _found(src, "AD109") == []


CLONE_METHOD = """
import torch
from torch import nn


class Body(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n
        self.lin = nn.Linear(n, 1)

    def forward(self, x):
        return self.lin(x)

    def duplicate(self):
        {body}


class Meta:
    def __init__(self):
        self.body = Body(4)
        self.opt = torch.optim.Adam(self.body.parameters())

    def inner(self, model, x):
        fresh = model.duplicate()
        return fresh

    def outer(self, x):
        adapted = self.inner(self.body, x)
        loss = adapted(x).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
"""


def test_clone_method_through_a_helper_method_is_reported_with_its_inference():
    body = "other = type(self)(self.n)\n        other.load_state_dict(self.state_dict())\n        return other"
    found = _found(CLONE_METHOD.format(body=body), "AD109")
    assert [(line, fix) for line, fix, _ in found] == [(27, NONE)]
    assert "`Body.duplicate`" in found[0][2] and "inferred: `model.duplicate()` taken to be" in found[0][2]


def test_a_method_that_returns_self_is_no_copy():
    assert _found(CLONE_METHOD.format(body="return self"), "AD109") == []


def test_a_method_that_builds_without_loading_is_no_copy_read():
    # a fresh object not loaded from this one: not read as a copy (nothing said)
    assert _found(CLONE_METHOD.format(body="other = Body(self.n)\n        return other"), "AD109") == []


def test_a_model_between_the_critic_and_the_loss_is_not_judged():
    # loss_b trains `self.net_a`'s consumer `head` too, but `head` runs on net_a's output: it lies between
    # the loss and net_a, not behind a call of the model whose gradients the first pass had cleared
    src = """
    import torch
    from torch import nn


    class Solver:
        def __init__(self):
            self.body = nn.Linear(4, 6)
            self.head = nn.Linear(6, 3)
            self.opt_body = torch.optim.SGD(self.body.parameters(), lr=0.1)
            self.opt_head = torch.optim.SGD(self.head.parameters(), lr=0.1)

        def fit(self, batches):
            for x, y in batches:
                feat = self.body(x)
                out = self.head(feat)
                loss_head = nn.functional.cross_entropy(out, y)
                loss_body = nn.functional.cross_entropy(out, (y + 1) % 3) + feat.pow(2).mean()
                self.opt_head.zero_grad()
                loss_head.backward(retain_graph=True)
                self.opt_body.zero_grad()
                loss_body.backward()
                self.opt_head.step()
                self.opt_body.step()
    """
    assert all("walks the graph" not in msg for _, _, msg in _found(src, "AD103"))


def test_gradients_left_at_the_end_of_an_iteration_are_not_judged():
    # the generator's step comes before the critic's pass; its next zero_grad clears the leak each iteration
    src = TRAINER.format(between="self.second.zero_grad()", after="pass").replace(
        "            self.first.step()\n            self.second.step()\n", "            self.second.step()\n").replace(
        "            main.backward(retain_graph=True)\n", "            main.backward(retain_graph=True)\n"
        "            self.first.step()\n")
    assert all("walks the graph" not in msg for _, _, msg in _found(src, "AD103"))


def test_an_optimizer_over_the_copy_itself_is_left_alone():
    src = """
    import copy
    import torch
    from torch import nn


    class Pair:
        def __init__(self):
            self.base = nn.Linear(4, 1)
            self.base_opt = torch.optim.Adam(self.base.parameters())
            self.robust = copy.deepcopy(self.base)
            self.robust_opt = torch.optim.Adam(self.robust.parameters())

        def fit(self, x):
            loss = self.robust(x).pow(2).mean()
            self.robust_opt.zero_grad()
            loss.backward()
            self.robust_opt.step()
    """
    assert _found(src, "AD109") == []
