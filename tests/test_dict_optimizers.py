"""Optimizers and models kept in dicts (model_containers): a dict literal of
optimizers is read like `optims["G"] = ...` entry by entry, and an optimizer
built from a network's own name owns that network's dict entry too."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

TRAINER = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, G, D):
        MODELS
        OPTIMS

    def step(self, real, z):
        fake = self.models["G"](z)
        d_loss = F.softplus(self.models["D"](fake)).mean() + F.softplus(-self.models["D"](real)).mean()
        OPT_D.zero_grad()
        d_loss.backward()
        OPT_D.step()
        g_loss = F.softplus(-self.models["D"](fake)).mean()
        OPT_G.zero_grad()
        g_loss.backward()
        OPT_G.step()


G = nn.Linear(4, 2)
D = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
tr = Trainer(G, D)
for _ in range(3):
    tr.step(torch.randn(8, 2), torch.randn(8, 4))
"""

LITERAL = 'self.models = {"G": G, "D": D}'
ENTRIES = 'self.models = {}\n        self.models["G"] = G\n        self.models["D"] = D'
ONE_DICT = 'self.optims = {"all": torch.optim.SGD(list(G.parameters()) + list(D.parameters()), lr=0.1)}'
ONE_ATTR = 'self.opt = torch.optim.SGD(list(G.parameters()) + list(D.parameters()), lr=0.1)'
TWO_DICT = ('self.optims = {"G": torch.optim.SGD(G.parameters(), lr=0.1), '
            '"D": torch.optim.SGD(D.parameters(), lr=0.1)}')


def _found(models, optims, opt_g, opt_d):
    text = TRAINER.replace("MODELS", models).replace("OPTIMS", optims).replace("OPT_G", opt_g) \
        .replace("OPT_D", opt_d)
    findings, _, _ = check_source(textwrap.dedent(text), "train.py", all_rules(), Options())
    return sorted((f.code, f.fix) for f in findings if f.code.startswith("AD1"))


@pytest.mark.parametrize("models", [LITERAL, ENTRIES])
@pytest.mark.parametrize("optims,handle", [(ONE_DICT, 'self.optims["all"]'), (ONE_ATTR, "self.opt")])
def test_one_optimizer_over_both_gets_no_safe_fix(models, optims, handle):
    # the D step also moves G: a detach would stop G learning from the D loss, and a retain is not
    # proven (the step may change weights G's graph saved)
    found = _found(models, optims, handle, handle)
    assert found and all(safety != "safe" for _, safety in found), found
    assert ("AD103", "safe") not in found


@pytest.mark.parametrize("models", [LITERAL, ENTRIES])
def test_one_optimizer_per_network_in_a_dict_literal_detaches(models):
    found = _found(models, TWO_DICT, 'self.optims["G"]', 'self.optims["D"]')
    assert ("AD103", "safe") in found, found
