"""AD110: `h.detach()` as a statement does nothing; assign the result."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..analysis import decide
from ..analysis.walk import visit
from ..findings import SAFE, UNSAFE
from ..imports import dotted
from ..rule import Invalid, Rule, Valid

# Tensor methods that return a tensor and change nothing in their receiver.
# (A `.cpu()` of a CPU tensor returns the tensor itself, which is why
# `requires_grad_` is only a no-op once a `detach` has made a new tensor.)
_PURE_TENSOR = frozenset({
    "detach", "cpu", "cuda", "to", "clone", "contiguous", "float", "double", "half",
    "bfloat16", "long", "int", "short", "bool", "byte", "char", "type_as", "view",
    "view_as", "reshape", "reshape_as", "squeeze", "unsqueeze", "flatten", "t",
    "permute", "transpose", "expand", "expand_as", "pin_memory",
})
# Methods whose result is not a tensor: assigning it back would change the type.
_NOT_TENSOR = frozenset({"numpy", "item", "tolist"})
# Objects from these modules have a `detach()` with side effects (io buffers,
# sockets, weakref finalizers): never ours.
_FOREIGN = ("io.", "socket.", "weakref.", "tempfile.", "codecs.", "gzip.", "bz2.", "lzma.", "sys.", "os.")
_PARAMETER = ("torch.nn.Parameter", "torch.nn.parameter.Parameter")
_TORCH_DETACH = ("torch.detach", "torch.Tensor.detach")
_UNSEEN = object()  # an attribute target the file never assigns


def _simple(expr: cst.BaseExpression) -> bool:
    """Side-effect-free to evaluate (names, attributes, constants, simple indexing)."""
    if type(expr) in (cst.Name, cst.Integer, cst.Float, cst.SimpleString):
        return True
    if type(expr) is cst.Attribute:
        return _simple(expr.value)
    if isinstance(expr, cst.UnaryOperation):
        return _simple(expr.expression)
    if isinstance(expr, cst.Subscript):
        return _simple(expr.value) and all(_simple_slice(s.slice) for s in expr.slice)
    return False


def _simple_slice(part) -> bool:
    if isinstance(part, cst.Index):
        return _simple(part.value)
    if isinstance(part, cst.Slice):
        return all(p is None or _simple(p) for p in (part.lower, part.upper, part.step))
    return False


class _Chain:
    """`base.m1(..).m2(..)` split into the base and the methods, innermost first."""

    def __init__(self, base, methods) -> None:
        self.base = base
        self.methods = methods  # names

    @property
    def text(self) -> str:
        return "".join(f".{m}()" for m in self.methods)


def _chain(ctx, expr) -> Optional[_Chain]:
    """The no-op detach chain `expr` is, or None when it may have an effect."""
    methods = []
    inner = expr
    while type(inner) is cst.Call:
        if ctx.imports.is_(inner.func, *_TORCH_DETACH):
            if len(inner.args) != 1 or inner.args[0].keyword is not None or inner.args[0].star:
                return None
            methods.append("detach")
            inner = inner.args[0].value
            continue
        if type(inner.func) is not cst.Attribute:
            return None
        if not all(not arg.star and _simple(arg.value) for arg in inner.args):
            return None
        methods.append(inner.func.attr.value)
        inner = inner.func.value
    methods.reverse()
    if "detach" not in methods or not _simple(inner):
        return None
    first = methods.index("detach")
    for i, m in enumerate(methods):
        if m in _PURE_TENSOR:
            continue
        if m == "requires_grad_" and i > first:
            continue  # flags the new tensor only
        if m in _NOT_TENSOR and i == len(methods) - 1:
            continue
        return None  # an in-place op (`.zero_()`) writes the shared storage
    return _Chain(inner, methods)


# --- bindings (from ctx.bindings) --------------------------------------------

_KINDS = {"assign": "assign", "walrus": "assign", "with": "with", "for": "for", "param": "param"}


def _entry(binding) -> tuple:
    """A binding as (kind, value, path, node): kind assign | with | for |
    param | other; value and path only where the target gets the value."""
    kind = _KINDS.get(binding.kind, "other")
    if kind in ("assign", "with") and binding.path is not None:
        return kind, binding.value, binding.path, binding.node
    return ("other" if kind in ("assign", "with") else kind), None, None, binding.node


def _bindings(ctx, scope, key: str) -> list:
    """Bindings of `key` made in `scope` (a Scope); for `self.x` in a
    method, in every method of the class; `global key` counts as one."""
    model = ctx.bindings
    if "." in key:
        where = [scope]
        if scope.kind == "function" and scope.parent.kind == "class":
            where = model.methods(scope.parent)
        return [_entry(b) for b in model.attrs(key, where)]
    if model.declared(scope, key):
        return [("global", None, None, None)] + [_entry(b) for b in model.resolve(key, scope)[1]]
    return [_entry(b) for b in model.local(scope, key)]


def _seen(ctx, scope, key: str) -> list:
    """The bindings a read of `key` in `scope` sees: for a plain name, its
    owner's (enclosing functions and the module included)."""
    if "." in key:
        return _bindings(ctx, scope, key)
    return [_entry(b) for b in ctx.bindings.resolve(key, scope)[1]]


def _builtin(ctx, func, *names) -> bool:
    return type(func) is cst.Name and func.value in names and func.value not in ctx.imports.aliases


class DetachResultDiscarded(Rule):
    """
    `.detach()` called as a statement, its result thrown away.

    ## What it does
    Finds expression statements such as `h.detach()`, `hidden[0].detach()`,
    `h.detach().requires_grad_()`, `x.detach().cpu()` and
    `[h.detach() for h in hidden]`: a detach whose new tensor nobody keeps.
    Also `grad = grad.detach()` that rebinds the variable of `for grad in
    grads:` when nothing reads it afterwards (setting its `requires_grad`
    aside): the container keeps the undetached tensors. That one is reported
    without a fix: the code that uses the container trains through their
    graph now, and rebuilding it detached changes the gradients.

    ## Why it matters
    `detach()` does not change the tensor it is called on; it returns a new
    tensor that shares the storage but has no history. Called as a statement
    it does nothing, so the code that follows still uses the tensor that is
    attached to its graph. The author meant to cut the graph, typically to
    repackage an RNN's hidden state between batches, and the next backward
    still fails with "Trying to backward through the graph a second time",
    or memory keeps growing. In-place variants (`h.detach_()`) and in-place
    ops on the detached tensor (`p.detach().zero_()`, which writes the shared
    storage) do have an effect and are left alone.

    ## Example
    ```python
    for x, y in batches:
        hidden.detach()
        [s.detach() for s in state]
        out, hidden = rnn(x, hidden)
    ```

    ## Fix
    ```python
    for x, y in batches:
        hidden = hidden.detach()
        state = tuple(s.detach() for s in state)
        out, hidden = rnn(x, hidden)
    ```
    The result is assigned back to the expression it was called on. For a
    comprehension the container is rebuilt with its own type: `tuple(...)`
    when it is known to be a tuple (a tuple literal, `tuple(...)`, the state
    returned by `nn.LSTM` or `nn.LSTMCell`), a list comprehension when it is
    known to be a list. `hidden[0].detach()` is assigned back only when
    `hidden` is known to be a list or a dict.

    ## Fix safety
    Safe for `x = x.detach()` and `x = x.detach().requires_grad_()`: the
    statement had no effect, and the assignment does what it says. The fix
    is unsafe when the chain also converts the tensor (`x.detach().cpu()`:
    later code sees the converted tensor), and when an attribute is assigned
    that the file never assigns (an `nn.Parameter` attribute refuses a plain
    tensor). No fix is offered for the `.weight` or `.bias` of a torch.nn
    layer the file builds (a Parameter: `.requires_grad_(False)` stops
    training it), when the container's type is unknown
    (rebuilding a tuple as a list, or the reverse, can break code that checks
    it), when the element of a tuple would be assigned, when the name is a
    trainable leaf (`nn.Parameter`, `requires_grad=True`: rebinding it to a
    detached copy would stop it learning), when it is a loop variable not
    read again (rebinding it changes nothing), when it is a global that
    the assignment would turn into a local, or when a later backward of the
    same pass trains through it (`fake.detach()` in a GAN's D step, then the
    G loss on `fake`: the assignment would cut G from its own loss; the cut
    belongs in the D loss only, `D(fake.detach())`).
    """

    code = "AD110"
    name = "detach-result-discarded"
    summary = "`x.detach()` as a statement does nothing: detach returns a new tensor"
    fix_safety = SAFE
    tokens = ("detach",)

    VALID = [
        Valid("""
            import torch
            h.detach_()
        """, note="in place: cuts h itself"),
        Valid("""
            import torch
            for grad in grads:
                grad = grad.detach()
                total = total + grad.norm()
        """, note="the rebound loop variable is read"),
        Valid("""
            import torch
            for p in params:
                p = p.detach()
            print(p)
        """, note="read after the loop: the last one is kept"),
        Valid("""
            import torch
            from mmf.common.report import Report
            report = Report(batch, model(batch))
            report.detach()
        """, note="an object of a class not from torch: its own detach(), which may work in place"),
        Valid("""
            import torch
            print(h.detach())
            y = h.detach()
            hidden = tuple(s.detach() for s in hidden)
        """, note="the result is used"),
        Valid("""
            import torch
            for p in params:
                p.grad.detach().zero_()
        """, note="an in-place op on the detached tensor writes the shared storage"),
        Valid("""
            import torch
            model(x).detach()
        """, note="the forward call has effects (hooks, BatchNorm statistics)"),
        Valid("""
            import torch
            from torch_geometric.nn import TGNMemory
            memory = TGNMemory(100, 16, 100, 100).to(device)
            opt = torch.optim.Adam(memory.parameters())
            for batch in loader:
                z, last = memory(batch.n_id)
                z.sum().backward()
                memory.detach()
        """, note="a module's own detach() (nn.Module has none): it may work in place"),
        Valid("""
            import torch

            class DecoderState:
                def __init__(self, hidden):
                    self.hidden = hidden

                def detach(self):
                    self.hidden = self.hidden.detach()

            state = None
            for x, y in chunks:
                out, state = model(x, state)
                loss_fn(out, y).backward()
                state.detach()
        """, note="the project's own detach() returns nothing (it works in place), and `state` is only None or "
                  "what a call of code not torch's returns (OpenNMT's DecoderState)"),
        Valid("""
            import io
            import torch
            wrapper = io.TextIOWrapper(buf)
            wrapper.detach()
        """, note="not a tensor: io's detach has an effect"),
        Valid("""
            h.detach()
        """, note="no torch in this file"),
        Valid("""
            import torch
            h.requires_grad_().detach()
        """, note="requires_grad_ before detach flags h itself"),
    ]
    INVALID = [
        Invalid("""
            import torch
            for x in data:
                h.detach()  # cut the graph
                h = model(x, h)
        """, """
            import torch
            for x in data:
                h = h.detach()  # cut the graph
                h = model(x, h)
        """, line=3, column=5, message="returns a new tensor and this statement discards it"),
        Invalid("""
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    self.h.detach()
                    self.h = self.cell(x, self.h)
                    return self.h
        """, """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    self.h = self.h.detach()
                    self.h = self.cell(x, self.h)
                    return self.h
        """, line=4, column=9),
        Invalid("""
            import torch
            w.detach().requires_grad_()
        """, """
            import torch
            w = w.detach().requires_grad_()
        """, line=2, column=1),
        Invalid("""
            import torch
            from torch import nn
            lstm = nn.LSTM(4, 8)
            out, hidden = lstm(x)
            for x in data:
                [h.detach() for h in hidden]
                out, hidden = lstm(x, hidden)
        """, """
            import torch
            from torch import nn
            lstm = nn.LSTM(4, 8)
            out, hidden = lstm(x)
            for x in data:
                hidden = tuple(h.detach() for h in hidden)
                out, hidden = lstm(x, hidden)
        """, line=6, column=5),
        Invalid("""
            import torch
            def step(xs):
                states = [torch.zeros(3) for _ in xs]
                (s.detach() for s in states)
                return states
        """, """
            import torch
            def step(xs):
                states = [torch.zeros(3) for _ in xs]
                states = [s.detach() for s in states]
                return states
        """, line=4, column=5),
        Invalid("""
            import torch
            def repackage(hidden):
                [h.detach() for h in hidden]
                return hidden
        """, None, note="type of hidden unknown: no fix", line=3, column=5),
        Invalid("""
            import torch
            out, hidden = lstm(x)
            hidden[0].detach()
        """, None, note="hidden may be a tuple: item assignment would fail", line=3, column=1),
        Invalid("""
            import torch
            x.detach().cpu(); y = 1
        """, """
            import torch
            x = x.detach().cpu(); y = 1
        """, unsafe=True, line=2, column=1),
        Invalid("""
            import torch
            w = torch.nn.Parameter(torch.ones(3))
            w.detach()
        """, None, note="a trainable leaf", line=3, column=1),
        Invalid("""
            import torch.nn as nn

            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(3, 1)

                def freeze(self):
                    self.fc.weight.detach()
        """, None, note="a layer's weight is a Parameter: no fix, requires_grad_(False) suggested",
            line=9, column=9, message="is a parameter of `nn.Linear(...)`"),
        Invalid("""
            import torch
            model.memory.detach()
        """, """
            import torch
            model.memory = model.memory.detach()
        """, unsafe=True, note="an attribute the file never assigns: unsafe", line=2, column=1),
        Invalid("""
            import torch
            for p in model.parameters():
                p.grad.detach()
        """, """
            import torch
            for p in model.parameters():
                p.grad = p.grad.detach()
        """, note="`p.grad` assigned back (the idiom is `p.grad.detach_()`)", line=3, column=5),
        Invalid("""
            import torch
            def f():
                h.detach()
                return h
        """, None, note="a global: `h = ...` would make it local", line=3, column=5),
        Invalid("""
            import torch
            for h in hidden:
                h.detach()
        """, None, note="rebinding the loop variable changes nothing", line=3, column=5),
        Invalid("""
            import torch
            from torch import nn
            G, D = nn.Linear(4, 8), nn.Linear(8, 1)
            opt_g = torch.optim.SGD(G.parameters(), lr=0.1)
            opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
            for i in range(3):
                fake = G(torch.randn(2, 4))
                opt_d.zero_grad()
                fake.detach()
                D(fake).mean().backward()
                opt_d.step()
                opt_g.zero_grad()
                (-D(fake).mean()).backward()
                opt_g.step()
        """, None, note="G's own loss trains through fake after it: no fix", line=9, column=5,
                message="would also cut"),
        Invalid("""
            import torch
            grads = torch.autograd.grad(loss, params, create_graph=True)
            for grad in grads:
                grad = grad.detach()
                grad.requires_grad = False
            fast = [p - 0.1 * g for p, g in zip(params, grads)]
        """, None, note="the loop variable rebound, the container untouched: reported, no fix", line=4,
            column=5, message="rebinds the loop variable"),
        Invalid("""
            import torch
            state = {"h": h0}
            torch.detach(state["h"])
        """, """
            import torch
            state = {"h": h0}
            state["h"] = torch.detach(state["h"])
        """, line=3, column=1),
    ]

    def visit_Expr(self, node: cst.Expr) -> None:
        if not self.ctx.imports.mentions_torch():
            return
        value = node.value
        chain = _chain(self.ctx, value)
        if chain is not None:
            self._plain(node, chain)
            return
        comp = self._comprehension(value)
        if comp is not None:
            self._comp(node, *comp)

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or type(node.targets[0].target) is not cst.Name or \
                not self.ctx.imports.mentions_torch():
            return
        name = node.targets[0].target.value
        chain = _chain(self.ctx, node.value)
        if chain is None or not isinstance(chain.base, cst.Name) or chain.base.value != name:
            return
        from ..analysis.dead_rebinds import dead_loop_rebind

        loop = dead_loop_rebind(self.ctx, node, name)
        if loop is None:
            return
        ctx = self.ctx
        it_src = ctx.code(loop.iter).strip()
        call_src = ctx.code(node.value).strip()
        self.report(node, f"`{name} = {call_src}` rebinds the loop variable of `for {ctx.code(loop.target).strip()} "
                          f"in {it_src}` (line {ctx.line_of(loop)}) and nothing reads it afterwards: the new "
                          f"tensor is thrown away, and the tensors in `{it_src}` are not detached; to cut them, "
                          f"rebuild the container (e.g. `... = [g.detach() for g in ...]`). No automatic fix: the "
                          f"code that uses them trains through their graph now, and cutting it changes the "
                          f"gradients")

    # --- `x.detach()` -----------------------------------------------------
    def _plain(self, stmt: cst.Expr, chain: _Chain) -> None:
        ctx = self.ctx
        base = chain.base
        src = ctx.code(base).strip()
        call_src = ctx.code(stmt.value).strip()
        if self._foreign(stmt, base):
            return
        methods = chain.methods
        head = f"`{call_src}` returns a new tensor and this statement discards it: `{src}` itself is not detached"
        if methods[-1] in _NOT_TENSOR:
            return self._emit(stmt, f"{head}; assign the detached tensor where it is needed "
                                    f"(`.{methods[-1]}()` makes a value that is not a tensor, so no fix)")
        if methods in (["detach"], ["detach", "requires_grad_"]):
            safety = SAFE
            extra = ""
        else:
            safety = UNSAFE
            converted = [m for m in methods if m not in ("detach", "requires_grad_")]
            extra = (f" (unsafe fix: the assignment also applies "
                     f"{', '.join(f'`.{m}()`' for m in converted)} to `{src}` for the code that follows)")
        why = self._target_problem(stmt, base, src)
        if why is _UNSEEN:
            if safety == SAFE:
                safety = UNSAFE
                extra = (f" (unsafe fix: this file never assigns `{src}`; if it is an nn.Parameter "
                         f"the assignment raises)")
        elif why is not None:
            return self._emit(stmt, f"{head}; {why}")
        later = self._later_backward(stmt, base) if methods[0] == "detach" else None
        if later is not None:
            return self._emit(stmt, f"{head}; {later}")
        own = _own_detach(ctx) if safety == SAFE else None
        if own and own[1] and self._object_from_calls(stmt, base):
            # OpenNMT's Trainer: `dec_state` comes out of `self.model(...)` (or is None), and the
            # project's `DecoderState.detach()` detaches its tensors in place and returns nothing:
            # the statement reads as that method, and nothing shows `dec_state` is a tensor
            return
        own = own[0] if own else None
        if own:
            # OpenNMT's `dec_state.detach()`: a state object's own method that detaches in place and returns None
            safety = UNSAFE
            extra = (f" (unsafe fix: {own} defines its own `detach()`; if `{src}` is such an object the "
                     "statement already detaches it in place, and the assignment binds what that method returns)")
        new = cst.Assign(targets=[cst.AssignTarget(target=base.deep_clone())],
                         value=stmt.value, semicolon=stmt.semicolon)
        self._emit(stmt, f"{head}; assign it back: `{src} = {call_src}`{extra}",
                   replacement=new, fix=safety, fix_title=f"Assign back to `{src}`")

    def _object_from_calls(self, stmt, base) -> bool:
        """Is every binding of `base` None, or a call's result (or an element of it) of code
        that is not torch's: an object the project's own in-place `detach()` may be?"""
        ctx = self.ctx
        key = dotted(base)
        if key is None:
            return False
        binds = _seen(ctx, ctx.bindings.scope_of(stmt), key)
        if not binds:
            return False
        calls = 0
        for kind, value, path, node in binds:
            if kind != "assign":
                return False
            if isinstance(value, cst.Name) and value.value == "None":
                continue
            if not isinstance(value, cst.Call) or dotted(value.func) is None:
                return False
            qualified = ctx.imports.qualify(value.func)
            if qualified is not None and _torch(qualified) or _layer_of(ctx, value.func) is not None or \
                    self._recurrent(stmt, ctx.bindings.scope_of(stmt), value.func) is not None:
                return False  # `h = torch.zeros(...)`, `out, h = self.gru(x, h)`: a tensor
            calls += 1
        return calls > 0

    def _later_backward(self, stmt, base):
        """Why assigning the detached tensor back would change what trains (None:
        it would not, as far as the analysis sees): after this line, a backward
        that needs its graph (`g_loss` through `fake`, after the D step's
        `fake.detach()`) would lose its gradients through it."""
        ctx = self.ctx
        if not isinstance(base, cst.Name) or "backward" not in ctx.text:
            return None
        fn = ctx.enclosing(stmt, (cst.FunctionDef,))
        here = ctx.line_of(stmt)
        analysis = ctx.analysis
        found = []
        for scope in analysis.scopes:
            for ev in scope.events:
                if ev.kind != "backward" or ev.stmt is None or ev.call is None or \
                        ctx.enclosing(ev.stmt, (cst.FunctionDef,)) is not fn or ctx.line_of(ev.stmt) <= here:
                    continue
                # built earlier in the same pass (state from the last batch is the cut the author meant)
                if any(n.name == base.value and n.stmt is not None and n.iteration == ev.tag and
                       ctx.line_of(n.stmt) < here and decide.param_modules(analysis, [n]) for n in ev.reach):
                    found.append(ev)
        if not found:
            return None
        ev = max(found, key=lambda e: ctx.line_of(e.stmt))
        return (f"no fix: assigning it back would also cut `{ctx.code(ev.call).strip()}` "
                f"(line {ctx.line_of(ev.stmt)}) from the graph of `{base.value}`, and the modules that "
                f"built it would stop learning from that loss; detach it only where its gradient is not "
                f"wanted (`{base.value}.detach()` inside that one expression)")

    def _target_problem(self, stmt, base, src):
        """None (fine), _UNSEEN (an attribute never assigned: unsafe), or the
        sentence that says why there is no fix."""
        ctx = self.ctx
        scope = ctx.bindings.scope_of(stmt)
        if isinstance(base, cst.Name):
            return self._name_problem(stmt, base.value, scope)
        if isinstance(base, cst.Attribute):
            if base.attr.value == "data":
                return f"`{src}` is already outside the graph; did you mean `{ctx.code(base.value)}.detach()`?"
            attr = base.attr.value
            if attr == "grad":
                return None  # any tensor's `.grad` takes a tensor of its shape
            layer = _layer_of(ctx, base.value) if attr in ("weight", "bias") else None
            if layer is not None:
                return (f"`{src}` is a parameter of `{layer}`, which refuses a plain tensor and has no graph to "
                        f"cut; to stop training it, use `{src}.requires_grad_(False)`")
            assigned = False
            for node in _module_assigns(ctx.module):
                for target, value in node:
                    if isinstance(target, cst.Attribute) and target.attr.value == attr:
                        assigned = True
                        if isinstance(value, cst.Call) and ctx.imports.is_(value.func, *_PARAMETER):
                            return (f"`{src}` looks like an nn.Parameter, which refuses a plain tensor "
                                    f"and has no graph to cut")
            if _registers_parameter(ctx.module, attr):
                return f"`{src}` is registered as a parameter, which has no graph to cut"
            return None if assigned else _UNSEEN
        if isinstance(base, cst.Subscript):
            container = base.value
            key = dotted(container)
            kind = self._kind(stmt, key, scope, seen=True) if key else None  # `x[0] = ` rebinds no name
            if kind in ("list", "dict"):
                return None
            name = ctx.code(container).strip()
            if kind == "tuple":
                return (f"`{name}` is a tuple and cannot be assigned into; rebuild it, e.g. "
                        f"`{name} = tuple(s.detach() for s in {name})`")
            return (f"`{name}` may be a tuple (LSTM state is), which cannot be assigned into; "
                    f"rebuild it, e.g. `{name} = tuple(s.detach() for s in {name})`")
        return "its target cannot be assigned"

    def _name_problem(self, stmt, name: str, scope):
        ctx = self.ctx
        binds = _bindings(ctx, scope, name)
        if scope.kind == "function" and not binds:
            return (f"`{name}` is not assigned in this function, so `{name} = ...` would make it a local "
                    f"and raise UnboundLocalError; assign the result where `{name}` is defined")
        for kind, value, path, node in binds:
            if kind == "assign" and path == () and isinstance(value, cst.Call) and (
                    ctx.imports.is_(value.func, *_PARAMETER) or _requires_grad_kw(value)):
                return (f"`{name}` is a trainable leaf with no history to cut; rebinding it to a detached "
                        f"copy would stop it learning")
        for kind, value, path, node in binds:
            if kind == "for" and ctx.encloses(node, stmt) and not _read_after(ctx, node, stmt, name):
                return (f"`{name}` is the loop variable and is not read again, so rebinding it changes "
                        f"nothing; rebuild the container, e.g. `... = tuple(s.detach() for s in ...)`")
        return None

    def _foreign(self, stmt, base) -> bool:
        ctx = self.ctx
        qualified = ctx.imports.qualify(base)
        if qualified is not None and not _torch(qualified):
            return True
        key = dotted(base)
        if key is None:
            return False
        if ctx.analysis.names.is_module(key):
            # nn.Module has no `detach()`: a module's is its class's own method (TGNMemory.detach
            # detaches its state in place), not Tensor.detach
            return True
        for kind, value, path, node in _seen(ctx, ctx.bindings.scope_of(stmt), key):
            if kind in ("assign", "with") and path == () and isinstance(value, cst.Call):
                if _builtin(ctx, value.func, "open"):
                    return True
                value_qualified = ctx.imports.qualify(value.func)
                if value_qualified is not None and value_qualified.startswith(_FOREIGN):
                    return True
                # `report = Report(batch, output)` of a class not from torch: its own `detach()`
                # (mmf's Report detaches its items in place and returns itself)
                names = ctx.analysis.names
                local = dotted(value.func)
                if value_qualified is not None and not _torch(value_qualified) and \
                        value_qualified.rsplit(".", 1)[-1][:1].isupper() or \
                        local in names.classes and local not in names.module_classes:
                    return True
        return False

    # --- container kinds ---------------------------------------------------
    def _kind(self, stmt, key: str, scope, seen=False) -> Optional[str]:
        """tuple | list | dict: the container `key` is bound to in `scope`
        (seen=True: the one a read sees, wherever it is bound)."""
        kinds = set()
        binds = (_seen if seen else _bindings)(self.ctx, scope, key)
        if not binds:
            return None
        for kind, value, path, node in binds:
            kinds.add(self._value_kind(stmt, scope, value, path) if kind == "assign" else None)
        return kinds.pop() if len(kinds) == 1 else None

    def _value_kind(self, stmt, scope, value, path) -> Optional[str]:
        ctx = self.ctx
        if path == ():
            if isinstance(value, cst.Tuple):
                return "tuple"
            if isinstance(value, (cst.List, cst.ListComp)):
                return "list"
            if isinstance(value, (cst.Dict, cst.DictComp)):
                return "dict"
            if isinstance(value, cst.Call):
                for b in ("tuple", "list", "dict"):
                    if _builtin(ctx, value.func, b):
                        return b
                if self._recurrent(stmt, scope, value.func) == "torch.nn.LSTMCell":
                    return "tuple"
        if path == (1,) and isinstance(value, cst.Call):
            if self._recurrent(stmt, scope, value.func) == "torch.nn.LSTM":
                return "tuple"
        return None

    def _recurrent(self, stmt, scope, func) -> Optional[str]:
        """"torch.nn.LSTM" / "torch.nn.LSTMCell" when `func` is known to be one."""
        key = dotted(func)
        if key is None:
            return None
        ctx = self.ctx
        found = set()
        for kind, value, path, node in _seen(ctx, scope, key):
            if kind == "assign" and path == () and isinstance(value, cst.Call):
                qualified = ctx.imports.qualify(value.func)
                found.add(qualified if qualified in ("torch.nn.LSTM", "torch.nn.LSTMCell") else None)
            else:
                found.add(None)
        return found.pop() if len(found) == 1 else None

    # --- `[h.detach() for h in hidden]` ----------------------------------
    def _comprehension(self, value):
        ctx = self.ctx
        comp = value
        wrapper = None
        if isinstance(value, cst.Call) and _builtin(ctx, value.func, "list", "tuple") and len(value.args) == 1 \
                and value.args[0].keyword is None and not value.args[0].star \
                and isinstance(value.args[0].value, cst.GeneratorExp):
            comp = value.args[0].value
            wrapper = value.func.value
        if type(comp) not in (cst.ListComp, cst.GeneratorExp):
            return None
        for_in = comp.for_in
        if for_in.asynchronous is not None or for_in.ifs or for_in.inner_for_in is not None:
            return None
        if not _simple(for_in.iter) or not isinstance(for_in.target, cst.Name):
            return None
        chain = _chain(ctx, comp.elt)
        if chain is None or chain.methods[-1] in _NOT_TENSOR:
            return None
        return comp, chain, wrapper

    def _comp(self, stmt, comp, chain, wrapper) -> None:
        ctx = self.ctx
        for_in = comp.for_in
        iterable = for_in.iter
        it_src = ctx.code(iterable).strip()
        var = for_in.target.value
        src = ctx.code(stmt.value).strip()
        head = (f"`{src}` builds detached copies and this statement discards them: the tensors in "
                f"`{it_src}` stay attached to their graph")
        key = dotted(iterable)
        if chain.methods != ["detach"] or dotted(chain.base) != var or key is None:
            return self._emit(stmt, f"{head}; assign the detached values back")
        qualified = ctx.imports.qualify(iterable)
        if qualified is not None and not _torch(qualified):
            return
        scope = ctx.bindings.scope_of(stmt)
        kind = self._kind(stmt, key, scope)
        if kind not in ("tuple", "list"):
            return self._emit(stmt, f"{head}; `{it_src}` may be a tuple or a list, and rebuilding it as the "
                                    f"other type can break code that checks it, so no fix: assign "
                                    f"`{it_src} = tuple(...)` or `[...]` to match its type")
        elt = comp.elt
        if kind == "tuple":
            new_value = cst.Call(func=cst.Name("tuple"),
                                 args=[cst.Arg(cst.GeneratorExp(elt=elt, for_in=for_in, lpar=[], rpar=[]))])
            fixed = f"{it_src} = tuple({ctx.code(elt).strip()}{ctx.code(for_in)})"
        else:
            new_value = cst.ListComp(elt=elt, for_in=for_in)
            fixed = f"{it_src} = [{ctx.code(elt).strip()}{ctx.code(for_in)}]"
        new = cst.Assign(targets=[cst.AssignTarget(target=iterable.deep_clone())], value=new_value,
                         semicolon=stmt.semicolon)
        self._emit(stmt, f"{head}; `{it_src}` is a {kind}, assign it back: `{fixed}`",
                   replacement=new, fix=SAFE, fix_title=f"Assign back to `{it_src}`")

    def _emit(self, stmt, message, replacement=None, fix=None, fix_title=""):
        if replacement is None:
            self.report(stmt, message)
        else:
            self.report(stmt, message, replacement=replacement, fix=fix, fix_title=fix_title)


# --- small helpers ----------------------------------------------------------

def _torch(qualified: str) -> bool:
    """From torch itself (`torch_geometric.nn.TGNMemory` is not)."""
    return qualified == "torch" or qualified.startswith("torch.")


def _requires_grad_kw(call: cst.Call) -> bool:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "requires_grad":
            return not (isinstance(arg.value, cst.Name) and arg.value.value == "False")
    return False


class _Names(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.nodes: list = []

    def visit_Name(self, node) -> None:
        if node.value == self.name:
            self.nodes.append(node)


def _read_after(ctx, loop: cst.For, stmt, name: str) -> bool:
    """Whether `name` appears in the loop body after `stmt` (or in its `else`)."""
    end = ctx.positions[stmt].end
    visitor = _Names(name)
    visit(loop.body, visitor)
    if loop.orelse is not None:
        visit(loop.orelse, visitor)
    for name_node in visitor.nodes:
        start = ctx.positions[name_node].start
        if (start.line, start.column) >= (end.line, end.column):
            return True
    return False


class _Assigns(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.pairs: list = []

    def visit_Assign(self, node) -> None:
        self.pairs.append([(t.target, node.value) for t in node.targets])

    def visit_AnnAssign(self, node) -> None:
        self.pairs.append([(node.target, node.value)])


def _layer_of(ctx, owner) -> Optional[str]:
    """`nn.Linear(...)` when `owner` (`self.fc`) is bound to a torch.nn layer in this file."""
    key = dotted(owner)
    if key is None:
        return None
    for node in _module_assigns(ctx.module):
        for target, value in node:
            if dotted(target) == key and isinstance(value, cst.Call) and \
                    (ctx.imports.qualify(value.func) or "").startswith("torch.nn.") and \
                    (dotted(value.func) or "").split(".")[-1][:1].isupper():
                return f"{dotted(value.func)}(...)"
    return None


def _module_assigns(module: cst.Module) -> list:
    visitor = _Assigns()
    visit(module, visitor)
    return visitor.pairs


class _RegisterParameter(cst.CSTVisitor):
    def __init__(self, attr: str) -> None:
        super().__init__()
        self.attr = attr
        self.found = False

    def visit_Call(self, node) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "register_parameter" and node.args:
            first = node.args[0].value
            if isinstance(first, cst.SimpleString) and first.evaluated_value == self.attr:
                self.found = True


def _registers_parameter(module: cst.Module, attr: str) -> bool:
    visitor = _RegisterParameter(attr)
    visit(module, visitor)
    return visitor.found


def _own_detach(ctx) -> Optional[tuple]:
    """A class of this file, or of a project module this file imports (`import onmt` for
    onmt/Models.py, `from models import Decoder`), that defines `detach`: (its name for the
    message, whether that `detach` returns nothing, detaching in place), or None."""
    import os
    import re

    from ..analysis.project_index import classes_with_method, project_root

    for node in ctx.module.body:
        if isinstance(node, cst.ClassDef) and any(isinstance(item, cst.FunctionDef) and item.name.value == "detach"
                                                  for item in node.body.body):
            found = ctx.analysis.own_summary(f"{node.name.value}.detach")
            return f"`{node.name.value}` in this file", _in_place(found)
    if not ctx.path or not os.path.isfile(ctx.path) or "import" not in ctx.text:
        return None
    try:
        found = classes_with_method(ctx.path, "detach", whole=True)
        root = project_root(ctx.path)
    except (OSError, ValueError):
        return None
    for cls, summary, where in found:
        parts = os.path.splitext(os.path.relpath(where, root))[0].split(os.sep)
        here = os.path.dirname(os.path.relpath(ctx.path, root)).split(os.sep)
        # the module as imported from the root, or from this file's folder (a sibling script)
        names = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        if parts[:-1] == [p for p in here if p]:
            names.add(parts[-1])
        if any(re.search(rf"^\s*(?:from|import)\s+\.*{re.escape(name)}\b", ctx.text, re.M) for name in names):
            return f"`{cls}` ({os.path.basename(where)})", _in_place(summary)
    return None


def _in_place(summary) -> bool:
    """Does a `detach` method return nothing (`DecoderState.detach` runs `h.detach_()` on its tensors)?"""
    return summary is not None and summary.result == "const" and not summary.arity
