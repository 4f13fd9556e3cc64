"""A tensor a function makes require grad and hands to its own optimizer is a
leaf of every step's graph (analysis/trained_inputs.py): what a later step keeps
of it keeps that step's graph (AD101)."""
import textwrap

from autodetach import check_code

ATTACK = """
import torch
import torch.nn as nn

net = nn.Linear(4, 3)


def attack(images, labels, steps):
    w = images.clone().detach()
    MARK
    best = images.clone().detach()
    optimizer = torch.optim.Adam(OPTIMISED, lr=0.1)
    for step in range(steps):
        adv = torch.tanh(w)
        cost = nn.functional.cross_entropy(net(adv), labels)
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
        mask = adv.sum(1) > 0
        best[mask] = adv[mask]
    return best
"""


def _ad101_lines(mark, optimised="[w]"):
    src = textwrap.dedent(ATTACK).replace("MARK", mark).replace("OPTIMISED", optimised)
    return [f.line for f in check_code(src, select=["AD101"])]


def test_each_way_of_marking_the_input():
    store = textwrap.dedent(ATTACK).splitlines().index("        best[mask] = adv[mask]") + 1
    assert _ad101_lines("w.requires_grad = True") == [store]
    assert _ad101_lines("w.requires_grad_()") == [store]
    assert _ad101_lines("w = w.requires_grad_(True)") == [store]


def test_a_marked_tensor_the_optimizer_does_not_train_is_not_assumed():
    # the optimizer trains the network's own parameters: `w` is no trained input seen here
    assert _ad101_lines("w.requires_grad = True", optimised="net.parameters()") == []
    # the optimizer trains `w`, but nothing makes it require grad in this function
    assert _ad101_lines("pass") == []
