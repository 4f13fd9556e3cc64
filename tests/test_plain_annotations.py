"""Lists annotated as holding strings or counts hold no graph (analysis/plain_annotations.py);
a float annotation is not trusted (the AD102 mistake is written that way)."""
import textwrap

import autodetach

SRC = """
from typing import List
import torch

def table_names(model):
    names: {ann} = []
    for part in model.extra_repr().split(", "):
        names.append("col@" + part)
    return names

model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    names = table_names(model)
    loss = model(torch.randn(4, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

TOTAL = """
import torch
model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total: {ann} = 0
for step in range(3):
    loss = model(torch.randn(4, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss
print(total)
"""


def codes(src):
    return sorted(f.code for f in autodetach.check_code(textwrap.dedent(src), select=["AD1"]))


def test_list_annotated_as_strings_is_not_reported():
    assert codes(SRC.format(ann="List[str]")) == []
    assert codes(SRC.format(ann="Set[str]").replace("names.append(", "names.add(")) == []


def test_list_annotated_as_floats_is_reported():
    assert codes(SRC.format(ann="List[float]")) == ["AD101"]
    assert codes(SRC.format(ann="list")) == ["AD101"]


def test_total_annotated_as_a_number_is_still_reported():
    assert codes(TOTAL.format(ann="float")) == ["AD102"]
    assert codes(TOTAL.format(ann="int")) == ["AD102"]

