"""Reads of `self.X` after their own function stored it (analysis/rebound_reads.py),
and retains of phase methods judged where this file calls them."""
import textwrap

import libcst as cst

from autodetach.analysis.rebound_reads import cut_chain, reads_rebound
from autodetach.context import FileContext
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _reads(src: str, key: str) -> list:
    module = cst.parse_module(textwrap.dedent(src))
    ctx = FileContext(module, "m.py", module.code)
    attr = key.split("[", 1)[0].split(".")[1]
    found = []
    for node in _walk(module):
        if isinstance(node, cst.Attribute) and node.attr.value == attr and isinstance(node.value, cst.Name):
            up = ctx.parent(node)
            if isinstance(up, cst.AssignTarget):
                continue
            read = up if "[" in key and isinstance(up, cst.Subscript) else node
            found.append(reads_rebound(ctx, read, key))
    return found


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


def test_a_read_after_a_store_in_the_same_block_or_around_it():
    src = """
    class M:
        def forward_D(self):
            self.loss = self.net(x)
            self.loss = self.loss + 1
            if flag:
                y = self.loss.mean()
    """
    assert _reads(src, "self.loss") == [True, True]


def test_a_read_before_a_store_or_in_another_arm_or_function():
    src = """
    class M:
        def a(self):
            y = self.loss.mean()
            self.loss = self.net(x)

        def b(self):
            if flag:
                self.loss = self.net(x)
            else:
                y = self.loss.mean()

        def c(self):
            self.loss = self.net(x)
            def inner():
                return self.loss.mean()
    """
    assert _reads(src, "self.loss") == [False, False, False]


def test_a_store_that_may_keep_the_old_value_and_a_partial_store():
    src = """
    class M:
        def a(self):
            self.loss = self.loss if flag else self.net(x)
            y = self.loss.mean()

        def b(self):
            self.loss.part = self.net(x)
            y = self.loss.mean()
    """
    found = _reads(src, "self.loss")
    assert len(found) == 4 and not any(found)  # the two reads, the store's own read, `self.loss.part`'s base


def test_dict_entries_are_judged_one_by_one():
    src = """
    class M:
        def a(self):
            self.loss["g"] = self.net(x)
            y = self.loss["g"].mean()
            z = self.loss["d"].mean()
    """
    assert _reads(src, 'self.loss["g"]')[1] is True  # [0]: the store itself
    assert _reads(src, 'self.loss["d"]')[2] is False


MODEL = """
import torch
from torch import nn


class GAN:
    def __init__(self):
        self.netG, self.netD = nn.Linear(4, 4), nn.Linear(4, 1)
        self.opt_D = torch.optim.SGD(self.netD.parameters(), lr=0.1)
        self.opt_G = torch.optim.SGD(self.netG.parameters(), lr=0.1)
        self.d_loss = None

    def forward_D(self):
        self.d_loss = self.netD(self.fake.detach()).mean() - self.netD(self.real).mean()

    def backward_D(self):
        self.d_loss.backward(retain_graph=True)

    def optimize(self, real):
        self.real = real
        self.fake = self.netG(torch.randn(2, 4))
        self.opt_D.zero_grad()
        self.forward_D()
        self.backward_D()
        self.opt_D.step()
        self.opt_G.zero_grad()
        (-self.netD(self.fake).mean()).backward()
        self.opt_G.step()
        return self.d_loss.item()
"""


def _ad104(root, files):
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))
    rules = [r for r in all_rules() if r.code == "AD104"]
    path = root / "model.py"
    found, _, _ = check_source(path.read_text(), str(path), rules, Options())
    return [(f.line, f.fix_safety if hasattr(f, "fix_safety") else None) for f in found]


def test_a_phase_method_is_judged_where_this_file_calls_it(tmp_path):
    assert [line for line, _ in _ad104(tmp_path, {"model.py": MODEL})] == [17]


def test_another_file_calling_the_phase_method_keeps_it_quiet(tmp_path):
    driver = """
    from model import GAN
    gan = GAN()
    gan.forward_D()
    gan.backward_D()
    """
    assert _ad104(tmp_path, {"model.py": MODEL, "train.py": driver}) == []


def test_a_later_read_of_the_kept_loss_keeps_the_retain(tmp_path):
    shared = MODEL.replace("(-self.netD(self.fake).mean()).backward()",
                           "(self.d_loss - self.netD(self.fake).mean()).backward()")
    assert _ad104(tmp_path, {"model.py": shared}) == []


def _chains(src: str) -> list:
    module = cst.parse_module(textwrap.dedent(src))
    ctx = FileContext(module, "m.py", module.code)
    return [cut_chain(ctx, node) for node in _walk(module)
            if isinstance(node, cst.Attribute) and node.attr.value == "logit"]


def test_a_chain_of_calls_that_ends_in_a_cut():
    assert _chains("""
    a = self.logit.mean().item()
    b = self.logit.detach()
    c = self.logit.abs().mean(dim=1).cpu().numpy()
    """) == [True, True, True]
    assert _chains("""
    a = self.logit.mean() + 1
    self.logit.mean().backward()
    kept.append(self.logit.mean())
    d = self.logit.mean().cpu()
    """) == [False, False, False, False]
