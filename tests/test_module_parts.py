"""Optimizers that step modules they do not name (analysis/module_parts.py):
a container or wrapper module built from G and D, a parameter group added
later. Detaching there would stop a net learning from a loss whose
gradients the optimizer uses; the fix is retain_graph=True (AD105)."""
import os
import textwrap

import libcst as cst
import pytest

from autodetach.analysis.names import build_names
from autodetach.engine import Options, check_source
from autodetach.imports import ImportTable
from autodetach.registry import all_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = ["gan_one_optimizer_modulelist", "gan_one_optimizer_wrapper_given_nets", "gan_add_param_group"]


def _owns(src, opt):
    mod = cst.parse_module(textwrap.dedent(src))
    return build_names(mod, ImportTable.from_module(mod)).optimizers[opt].owns


@pytest.mark.parametrize("case", CASES)
def test_one_optimizer_over_both_nets_keeps_the_graph(case):
    with open(os.path.join(ROOT, "corpus", "AD105", case + ".py"), encoding="utf-8") as fh:
        src = fh.read()
    findings, _, _ = check_source(src, "case.py", all_rules(), Options())
    codes = [f.code for f in findings]
    assert "AD103" not in codes
    assert "AD105" in codes


@pytest.mark.parametrize("build", [
    "nets = nn.ModuleList([G, D])",
    "nets = nn.Sequential(G, D)",
    'nets = nn.ModuleDict({"g": G, "d": D})',
    "nets = Pair(G, D)",
    "nets = Pair(generator=G, discriminator=D)",
])
def test_a_module_built_from_modules_holds_their_parameters(build):
    owns = _owns(f"""
        import torch
        from torch import nn

        class Pair(nn.Module):
            def __init__(self, generator, discriminator):
                super().__init__()
                self.generator, self.discriminator = generator, discriminator

        G = nn.Linear(4, 8)
        D = nn.Linear(8, 1)
        {build}
        opt = torch.optim.Adam(nets.parameters())
        """, "opt")
    assert {"G", "D"} <= set(owns)


def test_add_param_group_adds_owners_or_makes_them_unknown():
    src = """
        import torch
        from torch import nn

        G = nn.Linear(4, 8)
        D = nn.Linear(8, 1)
        opt = torch.optim.Adam(G.parameters())
        opt.add_param_group({"params": D.parameters(), "lr": 1e-4})
        opt2 = torch.optim.Adam(D.parameters())
        opt2.add_param_group({"params": get_params()})
        """
    assert set(_owns(src, "opt")) == {"G", "D"}
    assert _owns(src, "opt2") is None


def test_separate_optimizers_still_own_only_their_net():
    owns = _owns("""
        import torch
        from torch import nn

        G = nn.Linear(4, 8)
        D = nn.Linear(8, 1)
        nets = nn.ModuleList([G, D])
        opt_g = torch.optim.Adam(G.parameters())
        """, "opt_g")
    assert set(owns) == {"G"}


def test_a_step_inside_another_files_helper_is_not_assumed_away():
    # corpus/AD105/helper_steps_generator_in_project: opt_G, zeroed before D's
    # backward, is stepped inside steps.generator_step: G's gradients from D's
    # loss are used, so AD103 must not detach `fake`.
    from autodetach.cli import main as cli_main

    d = os.path.join(ROOT, "corpus", "AD105", "helper_steps_generator_in_project")
    import contextlib
    import io
    import json

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        cli_main(["--no-cache", "--output-format", "json", "--select", "AD1", os.path.join(d, "train.py")])
    codes = [f["code"] for f in json.loads(out.getvalue())["findings"]]
    assert codes == ["AD105"]


def test_a_step_of_an_optimizer_from_another_file_is_not_ignored():
    # corpus/AD105/gan_optimizer_from_factory: `opt = make_optimizer(G, D)`
    # (optim_setup.py) only ever calls .step(); the nets are zeroed by hand.
    d = os.path.join(ROOT, "corpus", "AD105", "gan_optimizer_from_factory")
    with open(os.path.join(d, "train.py"), encoding="utf-8") as fh:
        src = fh.read()
    findings, _, _ = check_source(src, os.path.join(d, "train.py"), all_rules(), Options())
    codes = [f.code for f in findings]
    assert "AD103" not in codes
    assert "AD105" in codes


@pytest.mark.parametrize("bind", ["G, D = model.G, model.D", "self.G = model.G\nself.D = model.D"])
def test_parts_taken_from_an_owned_wrapper_are_stepped(bind):
    src = f"""
    import torch, torch.nn as nn
    class GAN(nn.Module):
        def __init__(self):
            super().__init__()
            self.G = nn.Linear(4, 8)
            self.D = nn.Linear(8, 1)
    model = GAN()
    opt = torch.optim.Adam(model.parameters())
    """
    owns = _owns(textwrap.dedent(src) + bind + "\n", "opt")
    names = ["G", "D"] if bind.startswith("G,") else ["self.G", "self.D"]
    assert set(names) <= owns
