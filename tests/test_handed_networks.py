"""A local helper that runs a network it is handed (`def feats(x, model):
return model(x)`, its layers in a loop, `model[0](x)`) returns a value that
hangs from that network's weights even when its input has no graph. Before,
such a target computed before the loop was taken as plain, and the retain
every epoch needs got a SAFE AD104 fix that crashes."""
import pytest

from autodetach.engine import check_code

HEAD = '''import torch
from torch import nn

net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4))

{helper}

target = feats(torch.rand(2, 4), net)
x = torch.rand(2, 4, requires_grad=True)
opt = torch.optim.Adam([x], lr=0.01)
for epoch in range(3):
    opt.zero_grad()
    loss = (feats(x, net) - target).pow(2).mean()
    loss.backward(retain_graph=True)
    opt.step()
'''

RUNS_NET = {
    "call": "def feats(x, model):\n    return model(x)",
    "layer_loop": "def feats(x, model):\n    for i, layer in enumerate(model):\n        x = layer(x)\n    return x",
    "children": "def feats(x, model):\n    for layer in model.children():\n        x = layer(x)\n    return x",
    "subscript": "def feats(x, model):\n    return model[2](model[1](model[0](x)))",
    "alias": "def feats(x, model):\n    first = model[0]\n    return model[2](model[1](first(x)))",
}

PLAIN = {
    # the network runs with gradients off: the target carries no graph, the retain is not needed
    "no_grad": "def feats(x, model):\n    with torch.no_grad():\n        return model(x)",
}


def _ad104(helper):
    return [f for f in check_code(HEAD.format(helper=helper), select=["AD104"])]


@pytest.mark.parametrize("name", sorted(RUNS_NET))
def test_target_from_a_handed_network_keeps_the_retain(name):
    assert _ad104(RUNS_NET[name]) == []


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_target_without_the_networks_graph_is_still_reported(name):
    assert [f.code for f in _ad104(PLAIN[name])] == ["AD104"]
