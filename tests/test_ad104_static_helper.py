"""AD104 on a retain in a @staticmethod that its class calls through `self`
(`self._stress(diff, energy)`): the caller's walk binds the arguments from the
first parameter on and judges the retain (flow.inline, rebound_reads.judged_in_file)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

CALC = """
import torch


class Calculator:
    def __init__(self):
        self.model = torch.nn.Linear(3, 1)
        self.results = {}

    def calculate(self, data):
        pos = data.clone().requires_grad_(True)
        energy = self.model(pos).sum()
        self.results["energy"] = energy.item()
        forces = self._forces(pos, energy)
        self.results["forces"] = forces.detach()
        LATER

    @staticmethod
    def _forces(pos, energy):
        grad = torch.autograd.grad(energy, pos, retain_graph=True)[0]
        return -grad
"""


def _ad104(src, tmp_path):
    # a file on disk: judged_in_file checks that no other project file calls the helper
    path = tmp_path / "calc.py"
    path.write_text(textwrap.dedent(src))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_static_helper_retain_nothing_uses_is_reported(tmp_path):
    found = _ad104(CALC.replace("LATER", "pass"), tmp_path)
    assert [f.line for f in found] == [20]
    # the energy hangs from a new leaf and a model built in `__init__`: the whole graph is in sight
    assert found[0].fix == "safe"


def test_static_helper_retain_a_later_grad_of_the_caller_needs_is_kept(tmp_path):
    found = _ad104(CALC.replace("LATER", "self.results[\"e2\"] = torch.autograd.grad(energy, pos)[0]"), tmp_path)
    assert found == []


def test_static_helper_arguments_bind_from_the_first_parameter(tmp_path):
    # the energy bound to `diff` (one parameter off) would carry no graph: the retain would look needed
    src = CALC.replace("LATER", "pass").replace("def _forces(pos, energy)", "def _forces(pos, energy, scale=1.0)")
    assert [f.line for f in _ad104(src, tmp_path)] == [20]

