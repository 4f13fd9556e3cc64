"""`opt_a, opt_b = self.optimizers()` (analysis/lightning_optimizers.py): each
optimizer owns what `configure_optimizers` returns at its position, in every
form Lightning takes, and a fact so read is no inference."""
import textwrap

import libcst as cst
import pytest

from autodetach.context import FileContext

MODULE = """
import pytorch_lightning as pl
import torch
import torch.nn as nn


class GAN(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.decoder = nn.Linear(4, 2)
        self.critic = nn.Linear(2, 1)

    def training_step(self, batch, batch_idx):
        first, second = self.optimizers()
        first.zero_grad()
        loss = self.critic(self.decoder(batch)).mean()
        self.manual_backward(loss)
        first.step()

    def configure_optimizers(self):
{body}
"""

FORMS = {
    "inline list": "return [torch.optim.Adam(self.critic.parameters()), torch.optim.Adam(self.decoder.parameters())]",
    "names": "a = torch.optim.Adam(self.critic.parameters())\nb = torch.optim.SGD(self.decoder.parameters(), lr=1)\n"
             "return a, b",
    "with schedulers": "a = torch.optim.Adam(self.critic.parameters())\nb = torch.optim.Adam(self.decoder.parameters())\n"
                       "return [a, b], [torch.optim.lr_scheduler.StepLR(a, 1)]",
    "dicts": "return ({'optimizer': torch.optim.Adam(self.critic.parameters()), 'frequency': 1},\n"
             "        {'optimizer': torch.optim.Adam(params=self.decoder.parameters())})",
    "attributes": "self.opt_c = torch.optim.Adam(self.critic.parameters())\n"
                  "self.opt_e = torch.optim.Adam(self.decoder.parameters())\nreturn [self.opt_c, self.opt_e]",
}


def _names(body):
    body = textwrap.indent(textwrap.dedent(body), " " * 8)
    ctx = FileContext(cst.parse_module(textwrap.dedent(MODULE).replace("{body}", body)), "gan.py")
    return ctx.analysis.names


@pytest.mark.parametrize("form", sorted(FORMS))
def test_position_gives_the_owner(form):
    names = _names(FORMS[form])
    assert names.optimizers["first"].owns == frozenset({"self.critic"})
    assert names.optimizers["second"].owns == frozenset({"self.decoder"})
    assert "first" not in names.inferred and "second" not in names.inferred


def test_count_mismatch_falls_back_to_names():
    names = _names("return [torch.optim.Adam(self.critic.parameters())]")
    assert names.optimizers["first"].owns is None
    assert "self.optimizers()" in names.inferred["first"]


def test_two_returns_that_disagree_prove_nothing():
    names = _names("if self.swap:\n    return [torch.optim.Adam(self.decoder.parameters()), "
                   "torch.optim.Adam(self.critic.parameters())]\n"
                   "return [torch.optim.Adam(self.critic.parameters()), torch.optim.Adam(self.decoder.parameters())]")
    assert names.optimizers["first"].owns is None
