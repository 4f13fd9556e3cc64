"""AD108 through a loss function of another file that steps a discriminator
(its summary's stale_returns), reached two ways real trainers use: keywords
handed on with `**kwargs`, and a method of the class that calls the method
which calls the helper (events found through the calls of the file)."""
from .test_cli import run_cli, write

LOSSES = '''import torch.nn.functional as F


def tc_loss_fn(weight, disc, disc_opt, **kwargs):
    z = kwargs["z"]
    scores = disc(z)
    term = scores.mean() * weight
    disc_loss = F.cross_entropy(disc(z.detach()), kwargs["labels"])
    disc_opt.zero_grad()
    disc_loss.backward(retain_graph=True)
    disc_opt.step()
    {again}return term, disc_loss
'''

TRAINER = '''import torch
from torch import nn

from losses import tc_loss_fn


class Trainer:
    def __init__(self, encoder, disc):
        self.encoder, self.disc = encoder, disc
        self.opt = torch.optim.Adam(encoder.parameters())
        self.disc_opt = torch.optim.Adam(disc.parameters())

    def terms(self, **kwargs):
        term, disc_loss = tc_loss_fn(1.0, {opt_arg}**kwargs)
        return term + kwargs["z"].pow(2).mean(), disc_loss

    def losses(self, x, labels):
        z = self.encoder(x)
        return self.terms(z=z, labels=labels)

    def step(self, x, labels):
        {call}
        self.opt.zero_grad()
        total.backward()
        self.opt.step()
'''
TWO_DEEP = "total, _ = self.losses(x, labels)"
ONE_DEEP = "total, _ = self.terms(z=self.encoder(x), labels=labels)"
OPT = "self.disc, self.disc_opt, "


def _run(tmp_path, call, again="", opt_arg=OPT):
    write(tmp_path / "losses.py", LOSSES.format(again="term = disc(z).mean() * weight\n    " if again else ""))
    write(tmp_path / "trainer.py", TRAINER.format(call=call, opt_arg=opt_arg))
    return run_cli(["--output-format", "concise", "trainer.py"], cwd=tmp_path, select="AD108")


def test_keywords_handed_on_with_double_star(tmp_path):
    res = _run(tmp_path, ONE_DEEP)
    assert "trainer.py:24:9: AD108" in res.out, res.out
    assert "steps `self.disc_opt`" in res.out


def test_two_methods_deep(tmp_path):
    res = _run(tmp_path, TWO_DEEP)
    assert "trainer.py:24:9: AD108" in res.out, res.out


def test_term_computed_again_after_the_step_is_silent(tmp_path):
    for call in (ONE_DEEP, TWO_DEEP):
        res = _run(tmp_path, call, again=True)
        assert "AD108" not in res.out, (call, res.out)


def test_optimizer_only_inside_double_star_is_not_followed(tmp_path):
    # what it steps may come through `**kwargs`: nothing is inferred from it
    trainer = TRAINER.replace("tc_loss_fn(1.0, {opt_arg}**kwargs)", "tc_loss_fn(1.0, self.disc, **kwargs)")
    write(tmp_path / "losses.py", LOSSES.format(again=""))
    write(tmp_path / "trainer.py", trainer.format(call=TWO_DEEP, opt_arg=""))
    res = run_cli(["--output-format", "concise", "trainer.py"], cwd=tmp_path, select="AD108")
    assert "AD108" not in res.out, res.out
