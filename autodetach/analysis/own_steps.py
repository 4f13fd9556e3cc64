"""Recurrent state a method's loop threads through another method of its own
object, and the callers that run that loop with gradients on (stdlib `ast`).

    class Runner:
        def __init__(self):
            self.rnn = CellNet(8, 16)                     # a network the object builds

        def step(self, obs, hidden):
            out, new_hidden = self.rnn(obs, hidden)       # runs it on the state it is given
            return out.argmax().item(), new_hidden        # a number, and the new state

        def episode(self, n):
            hidden = torch.zeros(1, 16)
            for t in range(n):
                action, hidden = self.step(obs, hidden)   # fed back: each step hangs from the last

    runner = Runner()
    runner.episode(100)                                   # a caller outside torch.no_grad()

The step is read in the class that defines the loop (`recurrent_calls`): every
`return` hands back, at the state's position, what a network of the object
(an attribute `__init__` builds from a class, or the module itself) computed
from the state it was given, and the other outputs the loop reads are numbers.
Whether gradients are on is the callers' choice: the loop's method is called
in the project's files (this one, and those that import its class) at least once
outside `torch.no_grad()` (no `with`, no decorator, and, for a call inside a
function of its file, no call of that function under one): a test script that
runs the rollout with gradients on leaks though the training script wraps it.
A method none of whose calls is seen, or whose calls all turn gradients off,
is left alone. For a function of the file (`grad_on_note`), every call seen
must run with gradients on and none backward what it returns, as
threaded_state asks of a function's calls in its own file.
That the network has trainable parameters is inferred (its class is only
named), so the fix is unsafe."""
from __future__ import annotations

import ast
import os
from typing import Optional

FROZEN = ("requires_grad_(False)", "requires_grad = False", "set_grad_enabled(False)", "inference_mode",
          "requires_grad=False", ".eval_mode(", "freeze(")
QUIET = ("no_grad", "inference_mode", "set_grad_enabled")


def self_step(path: str, text: Optional[str], cls_name: str, loop_fn: str, meth: str, arg_pos, n: int,
              pos: int) -> Optional[tuple]:
    """(plain positions, what was inferred) when `self.<meth>(...)`, called in a loop of
    `<cls_name>.<loop_fn>`, hands back at `pos` of an `n`-tuple the state a network of the object
    computed from its argument `arg_pos`, and some call of `loop_fn` runs it with gradients on."""
    from .recurrent_calls import _one, _parse

    tree = _parse(text)
    cls = next((c for c in (tree.body if tree else []) if isinstance(c, ast.ClassDef) and c.name == cls_name), None)
    if cls is None:
        return None
    own = [m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == meth]
    if len(own) != 1:
        return None
    plain = _one(cls, own[0], path, tree, arg_pos, n, pos, 0)
    if plain is None:
        return None
    loud = grad_on_calls(path, text, cls_name, loop_fn)
    if not loud:
        return None
    where = ", ".join(f"{os.path.basename(f)} line {line}" for f, line in loud[:2])
    return plain, (f"`self.{meth}` is read to run a network of the `{cls_name}` object on the state it is "
                   f"given and return the new state; that the network has parameters that require grad is taken "
                   f"from its being built from a class; `{loop_fn}` runs with gradients on where it is called "
                   f"({where}: outside `torch.no_grad()`)")


def grad_on_calls(path: str, text: Optional[str], cls_name: str, meth: str) -> list:
    """(file, line) of the calls `obj.<meth>(...)` (not through `self`) in this file and in the
    project's files that import `cls_name` from it (or its module), that run outside `torch.no_grad()`; [] when any file
    that calls it freezes parameters or turns gradients off in a way not placed here."""
    from .callers import parsed_texts
    from .project_index import files_mentioning
    from .recurrent_calls import _parse

    if not path or path == "<string>" or not os.path.isfile(path):
        return []
    me = os.path.realpath(path)
    others = [f for f in files_mentioning(path, f".{meth}(".encode()) if os.path.realpath(f) != me]
    found = []
    own = _parse(text) if text and f".{meth}(" in text else None
    texts = [(path, text, own)] if own is not None else []
    stem = os.path.splitext(os.path.basename(path))[0]
    for f, src, tree in parsed_texts(others, must=cls_name):
        if any(isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[-1] == stem and
               any(a.name == cls_name for a in n.names) or
               isinstance(n, ast.Import) and any(a.name.split(".")[-1] == stem for a in n.names)
               for n in ast.walk(tree)):
            texts.append((f, src, tree))  # it imports the class from this file's module
    for f, src, tree in texts:
        calls = []
        _walk(tree, meth, calls)
        if not calls:
            continue
        if any(t in src for t in FROZEN):
            return []
        for call, guarded, owner in calls:
            if guarded:
                continue
            if owner is not None and _owner_quiet(tree, owner):
                continue
            found.append((f, call.lineno))
    return sorted(found, key=lambda x: (x[0] != path, x))


def _walk(tree, meth, out) -> None:
    """`obj.<meth>(...)` calls not through `self`: (call, under no_grad, enclosing function)."""
    for node, guarded, owner in _guarded_nodes(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == meth and \
                not (isinstance(node.func.value, ast.Name) and node.func.value.id == "self"):
            out.append((node, guarded, owner))


def _walk_calls(tree, name, out) -> None:
    """`name(...)` calls: (call, under no_grad, enclosing function)."""
    for node, guarded, owner in _guarded_nodes(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            out.append((node, guarded, owner))


def _guarded_nodes(tree):
    """(node, under a no_grad `with` or decorator, enclosing function) for every node, without recursion."""
    stack = [(tree, False, None)]
    while stack:
        node, guarded, owner = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            owner = node
            guarded = guarded or any(_quiet(d) for d in node.decorator_list)
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(_quiet(i.context_expr) for i in node.items):
            guarded = True
        yield node, guarded, owner
        stack.extend((child, guarded, owner) for child in ast.iter_child_nodes(node))


def _owner_quiet(tree, owner) -> bool:
    """The function that makes the call is called in its file under `torch.no_grad()`, or is a
    method (its callers are not read: not taken as a call with gradients on)."""
    if owner not in tree.body:
        return True
    calls = []
    _walk_calls(tree, owner.name, calls)
    return any(guarded for _c, guarded, _o in calls)


def _quiet(expr) -> bool:
    call = expr.func if isinstance(expr, ast.Call) else expr
    last = call.attr if isinstance(call, ast.Attribute) else call.id if isinstance(call, ast.Name) else ""
    return last in QUIET


def grad_on_note(path: str, text: Optional[str], module, fn, cls_name: Optional[str]) -> Optional[str]:
    """In a file that trains nothing, why the loop of `fn` (None: a loop of the script itself)
    runs with gradients on: the script runs as written, or a call of `fn` seen in the project's
    files runs outside `torch.no_grad()`; None when no such call is seen."""
    if fn is None:
        return "the script's loop runs as written, and nothing in it turns gradients off"
    name = fn.name.value
    if cls_name is not None:
        loud = grad_on_calls(path, text, cls_name, name)
    elif fn in module.body:
        loud = _loud_function_calls(path, text, name)
    else:
        return None
    if not loud:
        return None
    where = ", ".join(f"{os.path.basename(f)} line {line}" for f, line in loud[:2])
    return f"`{name}` runs with gradients on where it is called ({where}: outside `torch.no_grad()`)"


def _loud_function_calls(path: str, text: Optional[str], name: str) -> list:
    """(file, line) of the calls `name(...)` of this file's function that run outside `no_grad`
    (in this file, or in one that imports it by name and backwards nothing where it calls it);
    [] when any call seen turns gradients off (its caller chose)."""
    from .eval_loops import _remote_calls
    from .recurrent_calls import _parse

    tree = _parse(text)
    if tree is None or any(t in (text or "") for t in FROZEN):
        return []
    calls = []
    _walk_calls(tree, name, calls)
    if any(guarded or owner is not None and _owner_quiet(tree, owner) for _c, guarded, owner in calls):
        return []
    remote = _remote_calls(path, name) if path and path != "<string>" else []
    if any(guarded or backwarded for _f, _line, guarded, backwarded, *_ in remote):
        return []
    return sorted((path, c.lineno) for c, _g, _o in calls) + [(f, line) for f, line, *_ in remote]
