"""Objects of project `nn.Module` classes the names table takes for function calls.

    from gen_model import *                 # gen_model.py: class styletransfer(nn.Module)
    genmodel = styletransfer().cuda()
    enc_out = genmodel.encoder(x)

The names table files `X = Cls(...)` as an object of another file's class
only when the class name starts with a capital (or is reached through an
imported module): `styletransfer()` reads like a function call, and a star
import leaves the name unqualified. Here such a call is resolved through
the imports, or the file's star imports (analysis.star_imports), to the
class statement of a project file, which decides as for
analysis.project_modules: an nn.Module class that builds layers with
parameters makes `genmodel` a module, whose methods run them. Read with
stdlib `ast`; a name that resolves to no class decides nothing."""
from __future__ import annotations

import os

import libcst as cst

from ..imports import dotted
from .walk import nodes

from .saved import _WRAPPERS as _WRAPS  # `.to()`/`.cuda()`/`.train()` return the module


def mark_plain(table, analysis) -> None:
    """Give the module role to `key = cls(...)` (lower-case, or star-imported)
    where cls is an nn.Module class of a project file that builds layers."""
    from .project import SKIP
    from .project_modules import _handed_modules, _in_file, is_module_class
    from .roles import looks_like_loss
    from .star_imports import star_file

    ctx = analysis.ctx
    if not ctx.path or not os.path.isfile(ctx.path):
        return
    here = os.path.dirname(os.path.abspath(ctx.path))
    handed = None
    for node in nodes(ctx.module):
        if type(node) is not cst.Assign or len(node.targets) != 1:
            continue
        key = dotted(node.targets[0].target)
        call = node.value
        while isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value in _WRAPS:
            call = call.func.value
        if not key or not isinstance(call, cst.Call) or key in table.modules or key in table.optimizers \
                or key in table.leaves or key in table.instances or key in table.foreign_instances:
            continue  # a capitalised class is analysis.project_modules' to judge
        name = dotted(call.func)
        if not name or name in table.classes or name in table.functions or looks_like_loss(key) or \
                looks_like_loss(name):
            continue  # a loss object keeps the handling of its forward's summary
        if handed is None:
            handed = _handed_modules(ctx.module, table)
        if key in handed:
            continue
        qualified = ctx.imports.qualify(call.func)
        if qualified and "." in qualified and qualified.split(".")[0] not in SKIP:
            if is_module_class(here, qualified):
                table.modules[key] = "param"
        elif qualified is None and "." not in name:
            path = star_file(analysis, name)  # `from gen_model import *`
            if path is not None and _in_file(path, name, 2, set(), True):
                table.modules[key] = "param"
