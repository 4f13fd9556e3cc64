"""A plain name the file-wide name table calls a module, bound in another
function to a tensor (analysis/local_names.py): that function's value keeps
its graph."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

SRC = """
import torch
from torch import nn
import losses


class GAN:
    def __init__(self):
        self.gen = nn.Linear(3, 4)
        self.dis = nn.Linear(4, 1)
        self.opt = torch.optim.Adam(self.gen.parameters())
        self.crit = self._setup()

    def _setup(self):
        loss = losses.GenLoss(self.dis)
        return loss

    def step(self, noise):
{body}
"""


def _ad104(body):
    src = SRC.format(body=textwrap.indent(textwrap.dedent(body), "        ").rstrip())
    findings, _, _ = check_source(src, "case.py", all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_tensor_local_keeps_its_graph():
    found = _ad104("""
    loss = -torch.mean(self.dis(self.gen(noise)))
    self.opt.zero_grad()
    loss.backward(retain_graph=True)
    self.opt.step()
    return loss.item()
    """)
    assert len(found) == 1


def test_later_backward_through_the_same_graph_keeps_the_retain():
    found = _ad104("""
    fake = self.gen(noise)
    loss = -torch.mean(self.dis(fake))
    loss.backward(retain_graph=True)
    fake.pow(2).mean().backward()
    self.opt.step()
    """)
    assert found == []


def test_object_binding_in_the_same_function_is_an_object():
    found = _ad104("""
    loss = losses.GenLoss(self.dis)
    loss = -torch.mean(self.dis(self.gen(noise)))
    loss.backward(retain_graph=True)
    self.opt.step()
    """)
    assert found == []


def test_a_global_statement_in_the_function_keeps_the_object_reading():
    # `global` lists NameItems: reading them must not fail (an internal error dropped every AD1 finding of the file)
    src = SRC.format(body=textwrap.indent(textwrap.dedent("""
    global counter
    counter = 1
    loss = -torch.mean(self.dis(self.gen(noise)))
    self.opt.zero_grad()
    loss.backward(retain_graph=True)
    self.opt.step()
    return loss.item()
    """), "        ").rstrip())
    findings, _, _ = check_source(src, "case.py", all_rules(), Options())
    assert [f.code for f in findings if f.code == "AD104"] == ["AD104"]


def test_a_global_loss_stays_an_object():
    src = SRC.format(body=textwrap.indent(textwrap.dedent("""
    global loss
    loss = -torch.mean(self.dis(self.gen(noise)))
    self.opt.zero_grad()
    loss.backward(retain_graph=True)
    self.opt.step()
    """), "        ").rstrip())
    findings, _, _ = check_source(src, "case.py", all_rules(), Options())
    assert not [f for f in findings if f.code == "AD104"]
