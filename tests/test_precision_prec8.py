"""False positives from seen negatives (issue 8): a library wrapper of modules
read through star re-exports and inherited methods, torch-named libraries
that are not torch, lambdas on self, annotated plain results, per-task entries
on self, and fixes refused on values that are not tensors. Each shape next to
the nearest one that must still be reported."""
import textwrap

import libcst as cst

import autodetach
from autodetach.analysis.plain_values import not_tensor
from autodetach.analysis.project import find
from autodetach.analysis.summaries import summarize
from autodetach.context import FileContext
from autodetach.engine import Options, check_source
from autodetach.imports import ImportTable, is_torch
from autodetach.registry import all_rules


def found(src, select="AD1", path=None):
    src = textwrap.dedent(src)
    if path is None:
        return sorted((f.code, f.line) for f in autodetach.check_code(src, select=[select]))
    path.write_text(src)
    findings, _, _ = check_source(src, str(path), all_rules(), Options())
    return sorted((f.code, f.line) for f in findings if f.code.startswith(select))


def fixes(src, select="AD1"):
    return [(f.code, f.fix) for f in autodetach.check_code(textwrap.dedent(src), select=[select])]


# -- torch itself, not torchvision / torch_geometric -------------------------------------------

def test_is_torch_is_exact():
    assert is_torch("torch") and is_torch("torch.nn.functional")
    assert not is_torch("torch_geometric.nn") and not is_torch("torchvision.models")


def test_star_import_of_a_torch_named_library_does_not_qualify_names():
    table = ImportTable.from_module(cst.parse_module("from torchvision.models import *\n"))
    assert table.qualify(cst.parse_expression("resnet18")) is None
    table = ImportTable.from_module(cst.parse_module("from torch.nn import *\n"))
    assert table.qualify(cst.parse_expression("Linear")) == "torch.nn.Linear"


# -- a wrapper of modules from a package: star re-exports, inherited methods -------------------

WRAPPER = """
    import torch
    import torch.nn as nn
    from graphs import Wrapper
    enc = nn.Linear(4, 2)
    disc = nn.Linear(2, 1)
    model = Wrapper(enc, disc)
    enc_opt = torch.optim.Adam(enc.parameters())
    disc_opt = torch.optim.Adam(disc.parameters())
    def train(x):
        enc_opt.zero_grad()
        z = model.encode(x)
        for _ in range(5):
            disc_opt.zero_grad()
            d_loss = model.discriminator_loss(z)
            d_loss.backward()
            disc_opt.step()
        loss = model.reg_loss(z)
        loss.backward()
        enc_opt.step()
"""

BASE = """
import torch
import torch.nn as nn
class Base(nn.Module):
    def __init__(self, encoder, discriminator):
        super().__init__()
        self.encoder, self.discriminator = encoder, discriminator
    def encode(self, x):
        return self.encoder(x)
    def reg_loss(self, z):
        return self.discriminator(z).mean()
    def discriminator_loss(self, z):
        return self.discriminator(torch.randn_like(z)).mean() - self.discriminator({arg}).mean()
class Wrapper(Base):
    pass
"""


def _package(tmp_path, arg):
    pkg = tmp_path / "graphs"
    (pkg / "models").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .models import *\n")
    (pkg / "models" / "__init__.py").write_text("from .auto import Wrapper\n")
    (pkg / "models" / "auto.py").write_text(BASE.format(arg=arg))
    return tmp_path / "train.py"


def test_find_follows_star_reexports_and_bases(tmp_path):
    _package(tmp_path, "z.detach()")
    summary, where = find(str(tmp_path / "graphs" / "__init__.py"), "Wrapper.discriminator_loss")
    assert summary is not None and where.endswith("auto.py")
    assert find(str(tmp_path / "graphs" / "__init__.py"), "Wrapper.missing") == (None, None)


def test_wrapper_method_that_detaches_its_argument_is_clean(tmp_path):
    assert found(WRAPPER, path=_package(tmp_path, "z.detach()")) == []


def test_wrapper_method_that_keeps_its_argument_is_reported(tmp_path):
    # the discriminator's backward frees z's graph: the encoder loss then fails
    assert found(WRAPPER, path=_package(tmp_path, "z")) != []


def test_cut_read_from_text_not_from_arg_flow(tmp_path):
    # `self.forward(x)` looped over (UNIT's calc_gen_loss): arg_flow says "cut", the text does not
    from autodetach.analysis.method_cuts import cut_positions

    f = tmp_path / "nets.py"
    f.write_text(textwrap.dedent("""
        class D:
            def calc_gen_loss(self, fake):
                loss = 0
                for out in self.forward(fake):
                    loss += (out - 1).pow(2).mean() + out.data.sum() * 0
                return loss
            def calc_dis_loss(self, fake, real):
                return self.forward(fake.detach()).mean() - self.forward(real).mean() + real.size(0) * 0
    """))
    assert cut_positions(str(f), "calc_gen_loss", 1) == frozenset()
    assert cut_positions(str(f), "calc_dis_loss", 2) == frozenset({0})


# -- lambdas and argument-less calls on self are not networks ----------------------------------

CPC = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    class T:
        def __init__(self):
            self.steps = {steps}
            self.enc = nn.Linear(4, 4)
            self.labels = {{i: torch.arange(8) for i in self.steps()}}
            self.opt = torch.optim.Adam(self.enc.parameters())
        def epoch(self, batches):
            for x in batches:
                loss = 0.
                for i in self.steps():
                    loss += F.cross_entropy(self.enc(x), self.labels[i])
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
"""


def test_lambda_attribute_is_not_a_module():
    assert found(CPC.format(steps="lambda: range(1, 3)")) == []


def test_attribute_called_without_arguments_is_not_a_module():
    assert found(CPC.format(steps="make_steps")) == []


def test_labels_from_a_module_output_still_reported():
    src = CPC.format(steps="lambda: range(1, 3)").replace(
        "self.labels[i])", "self.labels[i]) + self.prior.sum()").replace(
        "self.opt = torch", "self.prior = self.enc(torch.randn(2, 4))\n            self.opt = torch")
    assert [code for code, _ in found(src)] == ["AD107"]


# -- an annotated plain result, a method no tensor has -------------------------------------------

def test_plain_annotation_believed_only_where_the_body_cannot_tell():
    s = summarize(textwrap.dedent("""
        from typing import Dict
        import torch
        class Floats(Dict[str, float]):
            pass
        class Losses(Dict[str, torch.Tensor]):
            def floats(self) -> Floats:
                out = Floats()
                for k in self.keys():
                    out[k] = self[k].item()
                return out
        def loss(x) -> float:
            return torch.nn.functional.mse_loss(x, x * 2)
    """))
    assert s["Losses.floats"].no_graph and s["Losses.floats"].result == "cut"
    assert s["loss"].result == "graph"


# -- one entry per task on self ------------------------------------------------------------------

TASKS = """
    import torch
    import torch.nn as nn
    class Trainer:
        def __init__(self, tasks):
            self.tasks = tasks
            self.shared = nn.Linear(4, 2)
            self.heads = nn.ModuleDict({t: nn.Linear(2, 1) for t in tasks})
            self.opt = torch.optim.SGD(self.shared.parameters(), lr=0.1)
            self.losses = {}
        def step(self, x, y):
            self.opt.zero_grad()
            rep = self.shared(x)
            for t in self.tasks:
                self.losses[t] = (self.heads[t](rep) - y[t]).pow(2).mean()
            for t in self.tasks:
                self.losses[t].backward(retain_graph=True)
            self.opt.step()
    tr = Trainer(["a", "b"])
    for _ in range(3):
        tr.step(torch.randn(8, 4), {"a": torch.randn(8, 1), "b": torch.randn(8, 1)})
"""


def test_per_task_entries_on_self_are_not_summed():
    assert found(TASKS) == []


def test_entries_per_epoch_still_kept():
    src = """
        import torch
        def train(model, opt, data):
            hist = {}
            for epoch, (x, y) in enumerate(data):
                loss = (model(x) - y).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                hist[epoch] = loss
            return hist
    """
    assert found(src) == [("AD102", 10)]


# -- no .detach() / .item() of what is not a tensor ----------------------------------------------

def _ctx(src):
    module = cst.parse_module(textwrap.dedent(src))
    return module, FileContext(module, text=module.code)


def test_not_tensor_values():
    module, ctx = _ctx("""
        import torch
        a = {}
        b = 0
        b += 1
        c = 0
        c += torch.ones(1)
        d = [x.item() for x in range(3)]
        e = len(d)
        f = [torch.ones(1) for _ in range(2)]
    """)
    got = {}
    for stmt in module.body:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        if isinstance(small, cst.Assign):
            got[small.targets[0].target.value] = not_tensor(ctx, small.targets[0].target)
    assert got == {"a": True, "b": True, "c": False, "d": True, "e": True, "f": False}


ROW = """
    import torch
    def train(model, opt, data):
        hist = []
        for x, y in data:
            out = model(x)
            loss = (out - y).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            row = {row}
            hist.append(row)
        return hist
"""


def test_list_row_is_reported_without_fix():
    assert fixes(ROW.format(row="[loss, out.mean()]")) == [("AD102", "none")]


def test_tensor_row_still_fixed():
    assert [fix for _, fix in fixes(ROW.format(row="loss * 2"))] == ["unsafe"]


# -- variants for the next batch -------------------------------------------------------------------

def test_absolute_star_reexport_and_two_level_base(tmp_path):
    pkg = tmp_path / "lib"
    (pkg / "models").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from lib.models import *\n")
    (pkg / "models" / "__init__.py").write_text("from .gan import *\n")
    (pkg / "models" / "gan.py").write_text(textwrap.dedent("""
        class Root:
            def critic_loss(self, fake, real):
                return self.critic(fake.detach()).mean() - self.critic(real).mean()
        class Middle(Root):
            pass
        class GAN(Middle):
            pass
    """))
    summary, where = find(str(pkg / "__init__.py"), "GAN.critic_loss")
    assert summary is not None and where.endswith("gan.py")


def test_plain_annotated_helper_in_a_sibling_module(tmp_path):
    (tmp_path / "logs.py").write_text(textwrap.dedent("""
        from typing import Dict
        def to_floats(losses) -> Dict[str, float]:
            out = {}
            for k in losses:
                out[k] = losses[k].detach().cpu().item()
            return out
    """))
    src = """
        import torch
        from logs import to_floats
        def train(model, opt, data):
            history = []
            for x, y in data:
                out = model(x)
                losses = {"mse": (out - y).pow(2).mean()}
                opt.zero_grad()
                losses["mse"].backward()
                opt.step()
                history.append(to_floats(losses))
            return history
    """
    assert found(src, path=tmp_path / "train.py") == []


def test_per_key_entries_in_a_step_called_in_a_loop():
    src = """
        import torch
        import torch.nn as nn
        class Step:
            def __init__(self, keys):
                self.keys = keys
                self.net = nn.Linear(4, 1)
                self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
                self.parts = {}
            def __call__(self, batch):
                self.opt.zero_grad()
                for k in self.keys:
                    self.parts[k] = self.net(batch[k]).pow(2).mean()
                sum(self.parts.values()).backward()
                self.opt.step()
        step = Step(["a", "b"])
        for _ in range(3):
            step({"a": torch.randn(2, 4), "b": torch.randn(2, 4)})
    """
    assert found(src) == []


def test_tuple_and_mixed_list_rows_get_no_detach():
    # main offered `row.detach()` (unsafe) for both: a tuple or list has no .detach()
    assert fixes(ROW.format(row="(loss, out.sum())")) == [("AD102", "none")]
    assert fixes(ROW.format(row="[loss, 1]")) == [("AD102", "none")]


def test_object_of_modules_only_is_a_module():
    module, ctx = _ctx("""
        import torch.nn as nn
        from lib import Wrapper, Trainer
        enc, disc = nn.Linear(4, 2), nn.Linear(2, 1)
        model = Wrapper(enc, disc)
        trainer = Trainer(enc, optimizer, loader)
    """)
    names = ctx.analysis.names
    assert names.is_module("model") and not names.is_module("trainer")
