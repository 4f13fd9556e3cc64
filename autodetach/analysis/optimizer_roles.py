"""Optimizers reached through other objects: `model.dis_optimizer`,
`agent.actor.optimizer`, `trainer.optimizer_g`.

Trainers and agents keep their optimizers as attributes of objects built in
another file, so no constructor here says what they are. A dotted name that
is stepped (and zeroed, or named like an optimizer) and never called is taken
for an optimizer; what it steps is paired by name (`dis_optimizer` with
`model.discriminator`) or by owner (`agent.actor.optimizer` with
`agent.actor`). Every such role is an inference and is recorded as one."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .roles import FUNC_NAME, MODULE_METHODS, OPT_NAME, looks_like_loss, side
from .walk import of_types


_CALL = frozenset({cst.Call})


def infer_optimizer_attrs(module: cst.Module, table) -> None:
    from .names import Optimizer

    use: dict = {}

    for n in of_types(module, _CALL):
        f = n.func
        key = dotted(f)
        if key is not None:
            use.setdefault(key, set()).add("()")
        if type(f) is cst.Attribute:
            base = dotted(f.value)
            if base is not None and "." in base:
                use.setdefault(base, set()).add(f.attr.value)
    found = []
    for key, u in use.items():
        if key in table.optimizers or key in table.modules or key in table.leaves or key.startswith("self."):
            continue  # self attributes: roles.infer_attr_roles
        if "step" not in u or "()" in u or u & MODULE_METHODS:
            continue
        last = key.rsplit(".", 1)[1]
        if "zero_grad" not in u and not OPT_NAME.search(last):
            continue
        found.append(key)
    holders = {k.rsplit(".", 1)[0] for k in found}
    for key, u in use.items():
        if "forward" in u and "." in key and not key.startswith("self.") and key not in table.modules \
                and key not in found:
            # agent.actor.forward(s), agent.target_actor.forward(s): the nn.Module API
            table.modules[key] = "param"
            table.inferred[key] = f"`{key}` is a module (it calls .forward())"
        # model.generator(x) next to model.gen_optimizer: a network on the same object
        if "()" in u and "." in key and key.rsplit(".", 1)[0] in holders and not key.startswith("self.") \
                and key not in table.modules and key not in found and not u & {"step", "zero_grad"}:
            last = key.rsplit(".", 1)[1]
            if looks_like_loss(last):
                table.modules[key] = "paramless"
            elif not FUNC_NAME.search(last) and last != "forward":
                table.modules[key] = "param"
                table.inferred[key] = f"`{key}` is a module (called on tensors, on the object that holds " \
                                      "an optimizer)"
    for key, u in use.items():
        # net(x) where optimizers step net.encoder and net.decoder: net is the whole model
        if "()" in u and "." not in key and key not in table.modules and key not in table.optimizers:
            parts = sorted(m for m in table.modules if m.startswith(key + ".") and m.count(".") == 1)
            if parts and any(o.owns and set(o.owns) & set(parts) for o in table.optimizers.values()):
                table.modules[key] = "param"
                table.inferred[key] = f"`{key}` is a module (it holds " + ", ".join(f"`{m}`" for m in parts) + \
                    " and is called on tensors)"
    held: dict = {}
    for optimizer in list(table.optimizers.values()):
        for part in optimizer.owns or ():
            if "." in part:
                held.setdefault(part.rsplit(".", 1)[0], []).append(part)
    for key, parts in held.items():
        # `self.online_net.calculate_fractions(x)` where optimizers step `self.online_net.fraction_net`:
        # the object that holds stepped networks and runs methods is a module (inferred)
        u = use.get(key, set())
        if key == "self" or key in table.modules or key in table.optimizers or key in table.leaves or \
                not u - MODULE_METHODS - {"step", "zero_grad", "to", "cuda", "cpu"}:
            continue
        table.modules[key] = "param"
        table.inferred[key] = f"`{key}` is a module (it holds " + ", ".join(f"`{m}`" for m in sorted(set(parts))) + \
            ", which an optimizer steps, and its methods are called)"
    for key in found:
        owns = _owner(key, table)
        table.optimizers[key] = Optimizer(key, frozenset(owns) if owns else None, None)
        note = f"`{key}` is an optimizer (it calls .step() and is never called)"
        if owns:
            how = "paired by name" if side(key) else "the object that holds it"
            note += "; it steps " + ", ".join(f"`{m}`" for m in sorted(owns)) + f" ({how})"
        table.inferred[key] = note


def _owner(key: str, table) -> set:
    base = key.rsplit(".", 1)[0]
    mods = [m for m, kind in table.modules.items() if kind != "paramless"]
    s = side(key)
    if s:
        # the same object's modules first: model.dis_optimizer -> model.discriminator
        near = [m for m in mods if m.rsplit(".", 1)[0] == base and side(m) == s]
        hits = near or [m for m in mods if side(m) == s]
        return set(hits) if len(hits) == 1 else set()
    if base in table.modules:
        return {base}  # agent.actor.optimizer steps agent.actor
    return set()
