"""AD105's retain_graph=True fix is blocked (no fix) when the step between the two
backwards updates a network whose graph saved its weights, also when the trainer
keeps that network under a name it was given (`self.netG = G`, `self.models["G"] = G`,
`self.models = {"G": G}`) and the file builds it and passes it in once. Where the
network comes from elsewhere the saving is not known and the fix stays unsafe."""
import pytest

from autodetach.engine import Options, check_source
from autodetach.findings import NONE, UNSAFE
from autodetach.registry import all_rules

STORES = {
    "attr": ("self.G = G\n        self.D = D", "self.G", "self.D"),
    "entries": ('self.models = {}\n        self.models["G"] = G\n        self.models["D"] = D',
                'self.models["G"]', 'self.models["D"]'),
    "literal": ('self.models = {"G": G, "D": D}', 'self.models["G"]', 'self.models["D"]'),
}

TEMPLATE = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, G, D):
        {store}
        self.opt = torch.optim.SGD(list(G.parameters()) + list(D.parameters()), lr=0.05)

    def step(self, real, z):
        fake = {g}(z)
        d_loss = F.softplus(-{d}(real)).mean() + F.softplus({d}(fake)).mean()
        self.opt.zero_grad()
        d_loss.backward()
        self.opt.step()
        g_loss = F.softplus(-{d}(fake)).mean()
        self.opt.zero_grad()
        g_loss.backward()
        self.opt.step()


{build}
for _ in range(3):
    trainer.step(torch.randn(8, 2), torch.randn(8, 4))
'''

HERE = '''G = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
trainer = Trainer(G, D)'''

INLINE = '''trainer = Trainer(nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2)),
                  nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1)))'''

ELSEWHERE = '''from nets import make_g, make_d
trainer = Trainer(make_g(), make_d())'''

TWICE = HERE + '''
other = Trainer(nn.Linear(4, 2), D)'''


def _ad105(build: str, store: str):
    code, g, d = STORES[store]
    src = TEMPLATE.format(store=code, g=g, d=d, build=build)
    findings, _, _ = check_source(src, "train.py", all_rules(), Options())
    found = [f for f in findings if f.code == "AD105"]
    assert len(found) == 1, [(f.code, f.message) for f in findings]
    return found[0]


@pytest.mark.parametrize("store", sorted(STORES))
@pytest.mark.parametrize("build", [HERE, INLINE], ids=["AD105-names", "AD105-inline"])
def test_a_given_network_that_saves_its_weights_blocks_the_retain(build, store):
    found = _ad105(build, store)
    assert found.fix == NONE and "would fail too" in found.message, (found.fix, found.message)


@pytest.mark.parametrize("store", sorted(STORES))
@pytest.mark.parametrize("build", [ELSEWHERE, TWICE], ids=["AD105-elsewhere", "AD105-two-sites"])
def test_a_network_not_known_keeps_the_retain_unsafe(build, store):
    found = _ad105(build, store)
    assert found.fix == UNSAFE and "whether that graph saved its weights is not known" in found.message, \
        (found.fix, found.message)
