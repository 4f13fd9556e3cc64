"""Module methods that read no parameters, past an abstract stub.

`dataset = self.model.dataset(old_policy.detach(), states, rewards)` of a
model whose class the file does not know (a factory built it): the call is
taken to run the model's parameters, so what it returns (a `Dataset` of
cut tensors and arrays, rebuilt into batches on every minibatch) would hang
from a graph built before the loop, which every later backward would seem to
walk again. The project's classes that define `dataset` say otherwise when
every body that can run (an abstract stub, `raise NotImplementedError`,
never runs: an override does) reads nothing of `self` that carries a graph
(`return ListDataset(*arrays)`): the result carries only the arguments'
graphs. Which class runs is inferred from the method's name, and a subclass
out of sight may override it: a verdict resting on it is unsafe, and says so.
"""
from __future__ import annotations

import os

import libcst as cst

from .project import summaries_of
from .project_index import files_mentioning, package_root
from .quiet_methods import project_methods
from .summaries import methods_named

TABLE = "stub_overrides"
# what `torch.nn.Module` defines itself: a project class's method of that name is not what runs on a module
_MODULE_METHODS = frozenset({
    "add_module", "apply", "bfloat16", "buffers", "children", "compile", "cpu", "cuda", "double", "eval",
    "extra_repr", "float", "forward", "get_buffer", "get_extra_state", "get_parameter", "get_submodule", "half",
    "ipu", "load_state_dict", "modules", "named_buffers", "named_children", "named_modules", "named_parameters",
    "parameters", "register_backward_hook", "register_buffer", "register_forward_hook", "register_forward_pre_hook",
    "register_full_backward_hook", "register_full_backward_pre_hook", "register_module", "register_parameter",
    "requires_grad_", "set_extra_state", "share_memory", "state_dict", "to", "to_empty", "train", "type", "xpu",
    "zero_grad"})


def concrete_self_cut(analysis, base, meth: str):
    """The note for `base.meth(...)` of a module whose class the file does not know,
    when the project's methods named `meth` (the file's folder, else the whole
    package: the class may live in a sibling package) have no backward and every
    body that is not an abstract stub returns none of `self`'s graph
    (`Summary.self_flow`); None otherwise. Methods of the file's folder with no
    stub among them are `quiet_methods.self_cut`'s to judge."""
    if meth.startswith("_") or meth in _MODULE_METHODS:
        return None  # `model.to(device)` hands back the module itself; torch's own methods are not the project's
    names = analysis.names
    if base in names.instances or base in names.foreign_instances:
        return None  # its class is known: its own method (or one it inherits) is what runs, not any of that name
    found = project_methods(analysis, base, meth)
    local = bool(found)
    if found == []:
        found = _package_methods(analysis.ctx.path, meth)  # the class may live in a sibling package
    if not found or any(s.events for s in found):
        return None
    bodies = [s for s in found if not s.abstract]
    if not bodies or local and len(bodies) == len(found) or \
            not all(s.self_flow in ("cut", "const") for s in bodies):
        return None  # (no stub among the file's own: quiet_methods.self_cut judges it)
    return (f"`{base}.{meth}()` is taken to run none of `{base}`'s parameters: its class is not known here, and "
            f"every project method named `{meth}` that is not an abstract stub reads nothing of `self` that "
            f"carries a graph (a subclass out of sight may override it)")


def _package_methods(path: str, meth: str) -> list:
    """The summaries of every method `meth` of a class below the file's package root
    (`agents/ppo.py` -> the folder holding `agents`, where `models/mlp.py` lies)."""
    start = os.path.join(package_root(path), "_")
    return [s for f in files_mentioning(start, f"def {meth}(".encode(), up=False)
            for _, s in methods_named(summaries_of(f), meth)]


def record(analysis, call: cst.Call, note: str) -> None:
    """Keep `note` for the function holding `call`: verdicts there rest on it."""
    fn = analysis.ctx.enclosing(call, cst.FunctionDef) or analysis.ctx.module
    notes = analysis.table(TABLE).setdefault(id(fn), [])
    if note not in notes:
        notes.append(note)


def notes_for(analysis, call: cst.Call) -> list:
    """The notes recorded for the function holding `call` (a backward judged there)."""
    table = analysis.table(TABLE)
    if not table:
        return []
    fn = analysis.ctx.enclosing(call, cst.FunctionDef) or analysis.ctx.module
    return list(table.get(id(fn), []))
