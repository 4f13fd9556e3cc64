"""Objects of `nn.Module` classes defined in other files of the project.

    from networks import ActorNetwork            # networks.py: class ActorNetwork(nn.Module)
    self.actor = ActorNetwork(alpha, dims)
    actions, log_probs = self.actor.sample_normal(state)
    q = self.critic.forward(state, actions)

Nothing in the training file calls `self.actor(...)`, so usage does not make
it a module, and its results were taken to carry no graph. The class
statement in the imported file does: a class whose bases reach
`torch.nn.Module` (through classes of that file, or one more imported file)
and that builds layers with parameters (`nn.Linear(...)`, `nn.Parameter`)
makes an object with parameters, and its methods run them. A module class
without layers of its own, and a loss object (`loss_fn = Loss()`, whose
forward takes the networks and may hold a frozen VGG), keep the handling
they had (the forward's summary says what each result hangs from). Read with stdlib `ast`; an import
that does not resolve to a file decides nothing."""
from __future__ import annotations

import ast
import os

from ..imports import dotted
from .callers import tree_of
from .names import PARAMLESS_PREFIXES
from .project import SKIP, module_file_up
from .roles import looks_like_loss
from .summaries import _aliases as _imports, _dotted

_MODULE_BASES = ("torch.nn.Module", "torch.nn.modules.module.Module", "pytorch_lightning.LightningModule",
                 "lightning.LightningModule", "lightning.pytorch.LightningModule")


def mark(table, analysis) -> None:
    """Give the module role to `key = Cls(...)` where Cls, imported from a
    project file, is an nn.Module subclass there."""
    ctx = analysis.ctx
    if not ctx.path or not os.path.isfile(ctx.path):
        return
    here = os.path.dirname(os.path.abspath(ctx.path))
    handed = _handed_modules(ctx.module, table)
    for key, func in list(table.foreign_instances.items()):
        # a role inferred from `.forward(x)` alone (roles.py) gives way to the class's proof
        guessed = key in table.modules and "its .forward() is called" in table.inferred.get(key, "")
        if key in table.modules and not guessed or key in table.optimizers or key in table.leaves:
            continue
        qualified = ctx.imports.qualify(func)
        if not qualified or "." not in qualified or qualified.split(".")[0] in SKIP:
            continue
        if looks_like_loss(key) or looks_like_loss(qualified) or key in handed:
            continue
        if is_module_class(here, qualified):
            table.modules[key] = "param"
            if guessed:
                table.inferred.pop(key, None)
    for key, func in list(table.foreign_instances.items()):
        # `loss = losses.WGAN_GP(self.dis)`: built of modules, so filed as one (names.classify), but a
        # plain class of the project: a loss object whose methods run the modules it holds
        qualified = ctx.imports.qualify(func)
        if table.modules.get(key) == "param" and qualified and "." in qualified and \
                qualified.split(".")[0] not in SKIP and (looks_like_loss(key) or looks_like_loss(qualified)) \
                and is_plain_class(here, qualified):
            del table.modules[key]
    for key in list(table.wrapped):
        if _wraps_factory_module(ctx, here, key):
            table.wrapped.discard(key)  # DDP(build_model(args)): the factory's class is seen
    for key, src in _aliases(ctx.module):
        if src in table.modules and key not in table.modules and key not in table.optimizers:
            table.modules[key] = table.modules[src]  # `self.actor = actor` after `actor = ActorNetwork()`


def is_module_class(here: str, qualified: str, hops: int = 2, layers: bool = True) -> bool:
    """Is the project class `qualified` (`networks.ActorNetwork`) an nn.Module
    (that builds layers with parameters, unless `layers` is False)?"""
    parts = qualified.split(".")
    path = module_file_up(here, parts[:-1])
    return path is not None and _in_file(path, parts[-1], hops, set(), layers)


def is_plain_class(here: str, qualified: str) -> bool:
    """Is the project class `qualified` provably no nn.Module: its bases, followed
    through the classes of its file, end in `object` only?"""
    parts = qualified.split(".")
    path = module_file_up(here, parts[:-1])
    tree = tree_of(path)[1] if path is not None else None
    if tree is None:
        return False
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    todo, seen = [parts[-1]], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        cls = classes.get(name)
        if cls is None or cls.keywords:
            return False  # imported from elsewhere, or a metaclass
        for base in cls.bases:
            text = _dotted(base)
            if text != "object":
                todo.append(text)
    return True


def _in_file(path: str, name: str, hops: int, seen: set, layers: bool) -> bool:
    if (path, name) in seen or len(seen) > 20:
        return False
    seen.add((path, name))
    tree = tree_of(path)[1]
    if tree is None:
        return False
    imports = _imports(tree)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    cls = classes.get(name)
    if cls is None:
        src = imports.get(name)  # a package `__init__` that re-exports the class
        return hops > 0 and src is not None and is_module_class(os.path.dirname(path), src, hops - 1, layers)
    return _module_bases(path, cls, classes, imports, hops, seen) and \
        (not layers or _has_layers(cls, classes, imports, 0))


def _wraps_factory_module(ctx, here: str, key: str) -> bool:
    """`model = DDP(build_model(args).to(device))` where `build_model`, a
    function of another project file, returns an object of one of that file's
    nn.Module classes (that builds layers) in every `return`."""
    import libcst as cst

    from .names import _key
    from .walk import nodes

    for node in nodes(ctx.module):
        if type(node) is not cst.Assign or not isinstance(node.value, cst.Call) or not node.value.args or \
                not any(_key(t.target) == key for t in node.targets):
            continue
        inner = node.value.args[0].value
        while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and \
                inner.func.attr.value in ("to", "cuda", "cpu", "train", "float", "half", "double"):
            inner = inner.func.value
        if not isinstance(inner, cst.Call):
            return False
        qualified = ctx.imports.qualify(inner.func)
        if not qualified or "." not in qualified or qualified.split(".")[0] in SKIP:
            return False
        return _factory_of_module(here, qualified)
    return False


def _factory_of_module(here: str, qualified: str) -> bool:
    parts = qualified.split(".")
    path = module_file_up(here, parts[:-1])
    tree = tree_of(path)[1] if path is not None else None
    if tree is None:
        return False
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == parts[-1]), None)
    if fn is None:
        return False
    returns = [n.value for n in ast.walk(fn) if isinstance(n, ast.Return)]
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    imports = _imports(tree)
    if not returns:
        return False
    for value in returns:
        name = _dotted(value.func) if isinstance(value, ast.Call) else None
        if name is None:
            return False
        if name in classes:
            if not _in_file(path, name, 2, set(), True):
                return False
        elif name.split(".")[0] not in imports or \
                not is_module_class(os.path.dirname(path), imports[name.split(".")[0]] +
                                    name[len(name.split(".")[0]):]):
            return False
    return True


def _has_layers(cls, classes: dict, imports: dict, depth: int) -> bool:
    """Does the class (or a base of its file) build a layer with parameters?"""
    for node in ast.walk(cls):
        if not isinstance(node, ast.Call):
            continue
        text = _dotted(node.func)
        if text is None:
            continue
        head, _, rest = text.partition(".")
        full = imports.get(head, head) + ("." + rest if rest else "")
        last = full.split(".")[-1]
        if full.startswith("torch.nn.") and last[:1].isupper() and not last.startswith(PARAMLESS_PREFIXES) \
                and not last.endswith("Loss") or last == "Parameter" and full.startswith("torch."):
            return True
        if text in classes and text != cls.name and depth < 3 and \
                _has_layers(classes[text], classes, imports, depth + 1):
            return True  # `self.block = ResBlock(64)` of a class of the same file
    return any(_dotted(b) in classes and _has_layers(classes[_dotted(b)], classes, imports, depth + 1)
               for b in cls.bases if depth < 3)


def _module_bases(path, cls, classes, imports, hops, seen) -> bool:
    for b in cls.bases:
        text = _dotted(b)
        if text is None:
            continue
        head, _, rest = text.partition(".")
        full = imports.get(head, head) + ("." + rest if rest else "")
        if full in _MODULE_BASES or full.startswith("torch.nn.") and full.split(".")[-1] == "Module":
            return True
        if text in classes and _in_file(path, text, hops, seen, False):
            return True
        if text not in classes and full.split(".")[0] not in SKIP and "." in full and hops > 0 and \
                is_module_class(os.path.dirname(path), full, hops - 1, False):
            return True
    return False


def _handed_modules(module, table) -> set:
    """Objects called with a module among the arguments (`crit(G, D, real, z)`):
    loss objects, left to their forward's summary."""
    import libcst as cst

    from .walk import nodes

    out = set()
    for node in nodes(module):
        if type(node) is cst.Call and any(table.is_module(dotted(arg.value)) for arg in node.args):
            key = dotted(node.func)
            if key:
                out.add(key)
    return out


def _aliases(module) -> list:
    """`key = src` plain assignments of the training file (libcst)."""
    import libcst as cst

    from .walk import nodes

    out = []
    for node in nodes(module):
        if type(node) is cst.Assign and len(node.targets) == 1:
            key, src = dotted(node.targets[0].target), dotted(node.value)
            if key and src:
                out.append((key, src))
    return out
