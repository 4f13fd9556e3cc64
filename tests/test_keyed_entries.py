"""A dict of losses read by constant keys (keyed.py): a read sees the entry
stored under its key, not every entry the dict ever held."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

HEAD = """\
import torch
import torch.nn as nn

enc = nn.Linear(4, 4)
gen = nn.Linear(4, 4)
disc = nn.Linear(4, 1)
opt_g = torch.optim.SGD(gen.parameters(), lr=0.1)
opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
"""


def _codes(body):
    text = HEAD + textwrap.dedent(body)
    findings, _, _ = check_source(text, "train.py", all_rules(), Options())
    return sorted(f.code for f in findings if f.code.startswith("AD1"))


GAN = """
losses = {}
for step in range(10):
    fake = gen(torch.randn(8, 4))
    losses["d"] = disc(fake.detach()).mean() - disc(torch.randn(8, 4)).mean()
    opt_d.zero_grad()
    losses["d"].backward()
    opt_d.step()
    losses["g"] = -disc(fake).mean()
    losses["g"] += fake.pow(2).mean()
    opt_g.zero_grad()
    losses["g"].backward()
    opt_g.step()
"""


def test_gan_steps_on_one_dict_of_losses():
    assert _codes(GAN) == []


def test_on_self_in_a_trainer():
    body = "class T:\n    def __init__(self):\n        self.losses = {}\n\n    def run(self):\n" + \
        textwrap.indent(GAN.replace("losses", "self.losses"), "        ") + "\n\nT().run()\n"
    assert _codes(body) == []


def test_computed_key_store_reads_the_whole_dict():
    # `losses[name]` may be any key: the read of "d" cannot rule out the G loss stored there
    body = GAN.replace('losses["g"] = -disc(fake).mean()', 'name = "g"\n    losses[name] = -disc(fake).mean()')
    assert _codes(body) != []


@pytest.mark.parametrize("second", ['losses["total"].backward()', 'losses["aux"].backward()'])
def test_entry_holding_a_freed_graph_is_still_seen(second):
    body = f"""
    losses = {{}}
    for step in range(10):
        z = enc(torch.randn(8, 4))
        losses["aux"] = z.pow(2).mean()
        losses["total"] = gen(z).pow(2).mean() + losses["aux"]
        opt_g.zero_grad()
        losses["aux"].backward()
        {second}
        opt_g.step()
    """
    # AD103 or AD105: `enc` is in no optimizer, so whether its gradients count decides
    assert {"AD103", "AD105"} & set(_codes(body))


def test_running_entry_across_iterations_is_still_seen():
    body = """
    running = {"loss": 0.0}
    for step in range(10):
        loss = gen(torch.randn(8, 4)).pow(2).mean()
        running["loss"] += loss
        opt_g.zero_grad()
        loss.backward()
        opt_g.step()
    """
    assert _codes(body) == ["AD102"]


def test_entry_kept_for_the_next_iteration_is_still_seen():
    body = """
    cache = {}
    for step in range(10):
        out = gen(torch.randn(8, 4))
        loss = out.pow(2).mean()
        if "prev" in cache:
            loss = loss + (out - cache["prev"]).pow(2).mean()
        opt_g.zero_grad()
        loss.backward()
        opt_g.step()
        cache["prev"] = out
    """
    assert "AD101" in _codes(body)


STEPPED = """
def adversarial(fake):
    d_loss = disc(fake.detach()).mean()
    {before}
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    {after}
    return term, d_loss


for step in range(3):
    fake = gen(torch.randn(8, 4))
    term, d_loss = adversarial(fake)
    {keep}
    opt_g.zero_grad()
    {read}.backward()
    opt_g.step()
"""

KEEPS = [
    ('losses = {"total": term + fake.pow(2).mean(), "disc": d_loss}', 'losses["total"]'),
    ("losses = (term + fake.pow(2).mean(), d_loss)", "losses[0]"),
    ('losses = {}\n    losses["total"] = term + fake.pow(2).mean()\n    losses["disc"] = d_loss', 'losses["total"]'),
    ('losses = dict()\n    losses["total"] = term\n    losses["disc"] = d_loss', 'losses["total"]'),
]


@pytest.mark.parametrize("keep,read", KEEPS)
def test_entry_beside_a_stepped_loss_is_its_own(keep, read):
    # the helper's d_loss was built before its step, but only the generator's entry is backwarded
    body = STEPPED.format(before="", after="term = -disc(fake).mean()", keep=keep, read=read)
    assert _codes(body) == []


@pytest.mark.parametrize("keep,read", KEEPS)
def test_stale_entry_read_by_its_key_is_still_seen(keep, read):
    body = STEPPED.format(before="term = -disc(fake).mean()", after="", keep=keep, read=read)
    assert _codes(body) == ["AD108"]


def test_other_tuple_element_is_not_the_stale_one():
    body = STEPPED.format(before="term = -disc(fake).mean()", after="",
                          keep="losses = (d_loss.detach(), term)", read="losses[1]")
    assert _codes(body) == ["AD108"]
    body = STEPPED.format(before="", after="term = -disc(fake).mean()",
                          keep="losses = (d_loss, term)", read="losses[1]")
    assert _codes(body) == []


UPDATE = """
def d_terms(fake):
    out = {{}}
    out["g"] = -disc(fake).mean()
    out["d"] = disc(fake.detach()).mean()
    opt_d.zero_grad()
    out["d"].backward()
    opt_d.step()
    {after}
    return out


for step in range(3):
    losses = dict()
    fake = gen(torch.randn(8, 4))
    losses.update(d_terms(fake))
    opt_g.zero_grad()
    losses["g"].backward()
    opt_g.step()
"""


def test_dict_update_with_a_stale_entry_is_followed():
    # `losses.update(helper())`: the helper's G term saved D's weights before its step
    assert _codes(UPDATE.format(after="")) == ["AD108"]


def test_dict_update_with_the_term_rebuilt_after_the_step():
    assert _codes(UPDATE.format(after='out["g"] = -disc(fake).mean()')) == []
