"""AD203: `loss.data[0]` on a 0-dim tensor becomes `loss.item()`."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..analysis.roles import looks_like_loss
from ..analysis.walk import walk
from ..findings import SAFE, UNSAFE
from ..imports import dotted
from ..rule import Edit, Invalid, Rule, Valid
from ._helpers import positional
from .ad207_legacy_reduction import call_reduction, loss_kind

# Methods that reduce a whole tensor to 0-dim when called without a dim.
_REDUCE_METHODS = {"sum", "mean", "prod", "max", "min", "norm", "std", "var", "median",
                   "all", "any", "nansum", "nanmean", "amax", "amin"}
_REDUCE_FUNCS = {"torch.sum", "torch.mean", "torch.prod", "torch.norm", "torch.std", "torch.var",
                 "torch.median", "torch.max", "torch.min", "torch.nansum", "torch.nanmean"}
_PAIR_FUNCS = {"torch.dot", "torch.dist", "torch.vdot"}
# Methods that keep the shape (so a 0-dim stays 0-dim).
_SAME_SHAPE = {"cpu", "cuda", "detach", "clone", "float", "double", "half", "abs", "sqrt",
               "exp", "log", "neg", "contiguous"}
_SCALAR_KW = {"dtype"}
# Methods of a module that return the module itself.
# What a Python float answers too: after these `.item()` still reads right.
_NUMBER_ATTRS = {"real", "imag", "conjugate", "is_integer", "hex", "as_integer_ratio", "__round__", "__format__"}
_MODULE_MOVES = {"cuda", "cpu", "to", "double", "float", "half", "train", "eval"}


def _is_number(expr) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    return isinstance(expr, cst.UnaryOperation) and isinstance(expr.expression, (cst.Integer, cst.Float))


class DataIndexScalar(Rule):
    """
    `loss.data[0]`, the PyTorch 0.3 way to read a scalar.

    ## What it does
    Finds `x.data[0]` (and `x.cpu().data[0]`, `x.data.cpu()[0]`,
    `x.data.cpu().numpy()[0]`) where `x` is provably a 0-dim tensor: a loss
    computed by a torch criterion or `F.*` loss with a reducing `reduction`
    (also after `.cuda()`/`.to()` on the criterion), a whole-tensor reduction
    (`.sum()`, `.mean()`, `torch.norm(t)`, ...), a call of a function of the
    same file whose every `return` is such a value, a name assigned only from
    such values, or arithmetic of them.

    It also follows an accumulator: `total += loss.data` (or
    `total += len(x) * loss.data`) started from a number, and read back as
    `total[0]`.

    ## Why it matters
    In 0.3, losses and reductions were 1-element tensors and `.data[0]` read
    the number. Since 0.4 they are 0-dim, and indexing one raises
    `IndexError: invalid index of a 0-dim tensor. Use tensor.item()`.

    ## Example
    ```python
    loss = criterion(model(x), y)
    total += loss.data[0]
    ```

    ## Fix
    ```python
    loss = criterion(model(x), y)
    total += loss.item()
    ```

    Where a tensor method follows (`loss.data[0].cpu().numpy()`, code
    written for 0.4, where indexing a 0-dim tensor returned it with a
    warning), `loss.detach().cpu().numpy()`: a float has no `.cpu()`.

    An accumulator: `total += loss.data` ... `total[0]` becomes
    `total += loss.item()` ... `total`.

    ## Fix safety
    Safe for `.data[0]`: on a 1-element tensor in 0.3 it returned the same
    Python number that `.item()` returns today. The `.numpy()[0]` forms are
    unsafe: they returned a NumPy scalar (`numpy.float32`), `.item()` a Python
    `float`, which prints with more digits. Real indexing is left alone: when
    `x` cannot be shown to be 0-dim there is no finding, except for names that
    look like a loss, which get `.item()` as an unsafe fix (`--unsafe-fixes`,
    and `--verify` runs it: on a tensor with more than one element `.item()`
    raises instead of reading the first one).

    The accumulator fix is safe when every accumulated value is provably 0-dim
    and the name is used only by its `= number` resets, its `+=`/`-=` and its
    `[0]` reads; the sum is then a Python float (double precision) where 0.3
    summed in the tensor's dtype, so logged averages can differ in the last
    digits, never the training. When an accumulated value is only named like a
    loss (`criterion(...)` of a parameter), the fix is unsafe.
    """

    code = "AD203"
    name = "data-index-scalar"
    summary = "`x.data[0]` on a 0-dim tensor is an IndexError today; use `x.item()`"
    fix_safety = SAFE
    # `.data` at the end of a line: an accumulation `total += loss.data`.
    tokens = (".data[0]", "numpy()[0]", "cpu()[0]", ".data\n", ".data\r", ".data #", ".data  #")

    VALID = [
        Valid("""
            out = model(x)
            first = out.data[0]
        """, note="real indexing of a model output"),
        Valid("""
            import torch
            s = torch.sum(x, 1)
            print(s.data[0])
        """, note="reduction over a dim: not 0-dim"),
        Valid("""
            import torch.nn.functional as F
            per = F.mse_loss(a, b, reduction="none")
            print(per.data[0])
        """),
        Valid("""
            import torch.nn as nn
            crit = nn.CrossEntropyLoss(reduce=False)
            l = crit(out, y)
            print(l.data[0])
        """),
        Valid("""
            total = x.sum()
            total = model(x)
            print(total.data[0])
        """, note="one binding is unknown"),
        Valid("""
            loss = x.sum()
            loss.data[0] = 1.0
        """, note="an assignment target"),
        Valid("""
            y = x.sum(0)
            print(y.data[0])
        """),
        Valid("""
            total = 0
            for out in outputs:
                total += out.data
            print(total[0])
        """, note="accumulates values that are not shown to be 0-dim"),
        Valid("""
            import torch.nn as nn
            crit = nn.MSELoss()
            total = 0
            for a, b in pairs:
                total += crit(a, b).data
            history.append(total)
            print(total[0])
        """, note="the accumulator is used otherwise too: left alone"),
        Valid("""
            import torch.nn as nn
            crit = nn.MSELoss()
            total = 0
            def reset():
                global total
                total = [0.0]
            for a, b in pairs:
                total += crit(a, b).data
            print(total[0])
        """, note="rebound through `global` elsewhere: cannot follow"),
        Valid("""
            import torch.nn as nn
            crit = nn.MSELoss()
            def f(a, b):
                if a is None:
                    return a
                return crit(a, b)
            print(f(a, b).data[0])
        """, note="a function with a return that is not 0-dim"),
    ]
    INVALID = [
        Invalid("""
            import torch.nn as nn
            criterion = nn.CrossEntropyLoss()
            def step(out, y):
                loss = criterion(out, y)
                return loss.data[0]
        """, """
            import torch.nn as nn
            criterion = nn.CrossEntropyLoss()
            def step(out, y):
                loss = criterion(out, y)
                return loss.item()
        """, line=5, column=12, message="reads a number the PyTorch 0.3 way"),
        Invalid("""
            import torch.nn.functional as F
            loss = F.nll_loss(out, y, size_average=False)
            total += loss.data[0]
        """, """
            import torch.nn.functional as F
            loss = F.nll_loss(out, y, size_average=False)
            total += loss.item()
        """, line=3, column=10, message="reads a number the PyTorch 0.3 way"),
        Invalid("""
            print((a - b).pow(2).sum().data[0])
        """, """
            print((a - b).pow(2).sum().item())
        """, line=1, column=7, message="reads a number the PyTorch 0.3 way"),
        Invalid("""
            import torch
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.crit = nn.MSELoss()
                def fit(self, x, y):
                    loss = self.crit(x, y) + 0.1 * torch.norm(x)
                    loss.backward()
                    return loss.cpu().data[0]
        """, """
            import torch
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.crit = nn.MSELoss()
                def fit(self, x, y):
                    loss = self.crit(x, y) + 0.1 * torch.norm(x)
                    loss.backward()
                    return loss.cpu().item()
        """, line=10, column=16, message="reads a number the PyTorch 0.3 way"),
        Invalid("""
            import torch.nn.functional as F
            err = F.mse_loss(a, b)
            shown = err.data[0].cpu().numpy()
        """, """
            import torch.nn.functional as F
            err = F.mse_loss(a, b)
            shown = err.detach().cpu().numpy()
        """, note="a tensor method after it: 0.4's 0-dim tensor, not `.item()`'s float",
            line=3, column=9, message="reads a 0-dim tensor the PyTorch 0.4 way"),
        Invalid("""
            err = x.mean()
            v = err.data.cpu().numpy()[0]
        """, """
            err = x.mean()
            v = err.item()
        """, unsafe=True, line=2, column=5, message="reads a number the PyTorch 0.3 way"),
        Invalid("""
            loss = model.compute_loss(x)
            print(loss.data[0])
        """, """
            loss = model.compute_loss(x)
            print(loss.item())
        """, unsafe=True, note="looks like a loss, not provably 0-dim: an unsafe fix",
            line=2, column=7, message="looks like the PyTorch 0.3 way to read a loss"),
        Invalid("""
            import torch.nn as nn
            criterion = nn.CrossEntropyLoss()
            def train(batches):
                total_loss = 0
                for x, y in batches:
                    loss = criterion(x, y)
                    total_loss += loss.data
                    if total_loss[0] > 10:
                        print(total_loss[0] / 2)
                        total_loss = 0
        """, """
            import torch.nn as nn
            criterion = nn.CrossEntropyLoss()
            def train(batches):
                total_loss = 0
                for x, y in batches:
                    loss = criterion(x, y)
                    total_loss += loss.item()
                    if total_loss > 10:
                        print(total_loss / 2)
                        total_loss = 0
        """, note="a .data accumulator followed to its [0] reads",
            line=8, column=12, message="accumulates `loss.data`"),
        Invalid("""
            import torch.nn as nn
            criterion = nn.CrossEntropyLoss().cuda()
            def evaluate(batches):
                total = 0
                for x, y in batches:
                    total += len(x) * criterion(x, y).data
                return total[0] / len(batches)
        """, """
            import torch.nn as nn
            criterion = nn.CrossEntropyLoss().cuda()
            def evaluate(batches):
                total = 0
                for x, y in batches:
                    total += len(x) * criterion(x, y).item()
                return total[0] / len(batches)
        """.replace("total[0]", "total"), note="weighted by a Python number",
            line=7, column=12, message="accumulates `criterion(x, y).data`"),
        Invalid("""
            def run(batches, criterion):
                total = 0
                for x, y in batches:
                    total += criterion(x, y).data
                return total[0]
        """, """
            def run(batches, criterion):
                total = 0
                for x, y in batches:
                    total += criterion(x, y).item()
                return total
        """, unsafe=True, note="criterion is a parameter: unsafe",
            line=5, column=12, message="accumulates `criterion(x, y).data`"),
        Invalid("""
            import torch
            import torch.nn.functional as F
            def loss_function(recon, x, mu, logvar):
                bce = F.binary_cross_entropy(recon, x, size_average=False)
                kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
                return bce + kld
            test_loss += loss_function(r, x, mu, logvar).data[0]
        """, """
            import torch
            import torch.nn.functional as F
            def loss_function(recon, x, mu, logvar):
                bce = F.binary_cross_entropy(recon, x, size_average=False)
                kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
                return bce + kld
            test_loss += loss_function(r, x, mu, logvar).item()
        """, note="a local function that returns a 0-dim value",
            line=7, column=14, message="reads a number the PyTorch 0.3 way"),
        Invalid("""
            import torch
            import torch.nn.functional as F
            mb_size = 64
            loss = F.binary_cross_entropy(p, x, size_average=False) / mb_size + torch.mean(kl)
            print(loss.data[0])
        """, """
            import torch
            import torch.nn.functional as F
            mb_size = 64
            loss = F.binary_cross_entropy(p, x, size_average=False) / mb_size + torch.mean(kl)
            print(loss.item())
        """, note="divided by a name bound to a number",
            line=5, column=7, message="reads a number the PyTorch 0.3 way"),
        Invalid("""
            import torch.nn as nn
            def train(inp, target):
                loss = 0
                for c in range(5):
                    loss += criterion(decoder(inp[:, c]), target[:, c])
                return loss.data[0] / 5
            criterion = nn.CrossEntropyLoss()
        """, """
            import torch.nn as nn
            def train(inp, target):
                loss = 0
                for c in range(5):
                    loss += criterion(decoder(inp[:, c]), target[:, c])
                return loss.item() / 5
            criterion = nn.CrossEntropyLoss()
        """, note="a number start, then `+=` of 0-dim losses (char-rnn)",
            line=6, column=12, message="reads a number the PyTorch 0.3 way"),
        Invalid("""
            from losses import ContrastLoss
            criterion = ContrastLoss()
            print(criterion(a, b).data[0])
        """, """
            from losses import ContrastLoss
            criterion = ContrastLoss()
            print(criterion(a, b).item())
        """, unsafe=True, note="a loss module from another file, called inline: unsafe",
            line=3, column=7, message="looks like the PyTorch 0.3 way to read a loss"),
        Invalid("""
            import torch.nn as nn
            criterion = nn.MSELoss()
            if cuda:
                criterion = criterion.cuda()
            n, dev_loss = 0, 0
            dev_loss = criterion(a, b)
            print(dev_loss.data[0])
        """, """
            import torch.nn as nn
            criterion = nn.MSELoss()
            if cuda:
                criterion = criterion.cuda()
            n, dev_loss = 0, 0
            dev_loss = criterion(a, b)
            print(dev_loss.item())
        """, line=7, column=7, message="reads a number the PyTorch 0.3 way"),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._sites: list = []  # (subscript, base, numpy)
        self._reads: list = []  # (subscript, name): `total[0]`, a possible .data accumulator

    # --- the sites --------------------------------------------------------------
    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) != 1:
            return
        el = node.slice[0].slice
        if not (isinstance(el, cst.Index) and isinstance(el.value, cst.Integer) and el.value.value == "0"):
            return
        base, numpy = _strip_data(node.value)
        if base is None:
            if isinstance(node.value, cst.Name):
                self._reads.append((node, node.value.value))
            return
        self._sites.append((node, base, numpy))

    def finish(self) -> None:
        for node, base, numpy in self._sites:
            if self._is_target(node):
                continue
            scope = self.ctx.bindings.scope_of(node)
            full = " ".join(self.ctx.code(base).split())
            src = _short(full)
            old = _short(self.ctx.code(node))
            use = f"`{full}.item()`" if src == full else "`.item()` in place of `.data[0]`"
            why = self._scalar(base, scope, set())
            method = self._tensor_method_after(node)
            new = cst.Call(func=cst.Attribute(value=base, attr=cst.Name("detach" if method else "item")),
                           lpar=node.lpar, rpar=node.rpar)
            plain = isinstance(node.value, cst.Attribute) and node.value.attr.value == "data"
            if why and method and not plain:
                self.report(node, f"`{old}` reads a 0-dim tensor the PyTorch 0.4 way; `{src}` is 0-dim ({why}), and "
                                  f"indexing a 0-dim tensor is an IndexError today; `.{method}()` after it needs a "
                                  f"tensor: drop the `[0]` (no automatic fix for this form)")
            elif why and method:
                # 0.4 returned the 0-dim tensor itself (with a warning), which is what a chain of tensor
                # methods after it was written for; a Python number has no `.cpu()`.
                msg = (f"`{old}` reads a 0-dim tensor the PyTorch 0.4 way; `{src}` is 0-dim ({why}), and "
                       f"indexing a 0-dim tensor is an IndexError today; `.{method}()` after it needs a "
                       f"tensor, so use `{src}.detach()` (what 0.4 returned), not `.item()`")
                self.report(node, msg, replacement=new, fix=UNSAFE if numpy else SAFE,
                            fix_title="Use `.detach()`")
            elif why:
                msg = (f"`{old}` reads a number the PyTorch 0.3 way; `{src}` is 0-dim ({why}), "
                       f"and indexing a 0-dim tensor is an IndexError today; use {use}")
                if numpy:
                    msg += (" (unsafe: `.numpy()[0]` gave a NumPy scalar, `.item()` gives a Python "
                            "number, which prints differently)")
                self.report(node, msg, replacement=new, fix=UNSAFE if numpy else SAFE,
                            fix_title="Use `.item()`")
            elif method:
                continue  # real indexing of a tensor, as far as can be told: valid today
            elif self._looks_like_loss(base) or _is_loss_call(base):
                self.report(
                    node,
                    f"`{old}` looks like the PyTorch 0.3 way to read a loss; if `{src}` is 0-dim "
                    f"(a reduced loss) this is an IndexError today and should be {use} (unsafe: "
                    f"`{src}` could not be shown to be 0-dim here; `--verify` can check it)",
                    replacement=new, fix=UNSAFE, fix_title="Use `.item()`",
                )
        self._accumulators()

    def _tensor_method_after(self, node) -> str:
        """The tensor-only method read off `x.data[0]` (`x.data[0].cpu()`), or ''."""
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value not in _NUMBER_ATTRS:
            return parent.attr.value
        return ""

    # --- `total += loss.data` ... `total[0]` -------------------------------------
    def _accumulators(self) -> None:
        groups: dict = {}
        for node, name in self._reads:
            if self._is_target(node):
                continue
            home = self._home(name, self.ctx.bindings.scope_of(node))
            if home is None:
                continue
            groups.setdefault((id(home), name), (home, []))[1].append(node)
        for (_, name), (home, reads) in groups.items():
            self._accumulator(name, home, reads)

    def _accumulator(self, name: str, home, reads: list) -> None:
        vals = _values(home.names[name])
        adds = []  # (.data attribute node, reason or "")
        for op, v, where in vals:
            if op == "=" and _is_number(v):
                continue
            if op not in ("AddAssign", "SubtractAssign"):
                return
            found = self._data_term(v, where)
            if found is None:
                return
            adds.append(found)
        if not adds:
            return
        read_ids = {id(r.value) for r in reads}
        for occ in self.ctx.bindings.reads_of(home, name):  # `global total` included
            parent = self.ctx.parent(occ)
            if isinstance(parent, cst.AssignTarget) or (
                    isinstance(parent, cst.AugAssign) and parent.target is occ):
                continue
            if id(occ) in read_ids:
                continue
            return  # used in some other way: leave it alone
        safe = all(why for _, why in adds)
        edits = [Edit(r, cst.Name(name, lpar=r.lpar, rpar=r.rpar)) for r in reads]
        edits += [Edit(attr, cst.Call(func=cst.Attribute(value=attr.value, attr=cst.Name("item")),
                                      lpar=attr.lpar, rpar=attr.rpar)) for attr, _ in adds]
        first = min(reads, key=lambda r: self.ctx.position(r))
        terms = ", ".join(f"`{_short(self.ctx.code(a))}`" for a, _ in adds)
        msg = (f"`{name}` accumulates {terms}, a 0-dim tensor today, and `{name}[0]` indexes it: an "
               f"IndexError today; accumulate `.item()` and read `{name}`")
        if not safe:
            msg += " (unsafe: an accumulated value could not be shown to be 0-dim)"
        self.report(first, msg, edits=edits, fix=SAFE if safe else UNSAFE,
                    fix_title="Accumulate `.item()`")

    def _data_term(self, expr, scope):
        """(the `x.data` node, why x is 0-dim or "") when `expr` is `x.data`, or
        arithmetic of one `x.data` with Python numbers; None otherwise."""
        if isinstance(expr, cst.Attribute) and expr.attr.value == "data":
            why = self._scalar(expr.value, scope, set())
            if why or self._looks_like_loss(expr.value) or _is_loss_call(expr.value):
                return expr, why
            return None
        if isinstance(expr, cst.BinaryOperation) and type(expr.operator).__name__ in (
                "Add", "Subtract", "Multiply", "Divide"):
            left, right = self._data_term(expr.left, scope), self._data_term(expr.right, scope)
            if left is not None and right is None and _is_py_number(expr.right):
                return left
            if right is not None and left is None and _is_py_number(expr.left):
                return right
        return None

    def _is_target(self, node) -> bool:
        parent = self.ctx.parent(node)
        if isinstance(parent, (cst.AssignTarget, cst.Del)):
            return True
        if isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node:
            return True
        return False

    def _home(self, name: str, scope):
        """The scope whose binding of `name` a use in `scope` sees, when every
        binding there can be followed; None otherwise."""
        owner, binds = self.ctx.bindings.resolve(name, scope)
        return owner if _values(binds) else None

    def _function(self, name: str, scope):
        """The one local def `name` calls, undecorated, with its returns."""
        owner, binds = self.ctx.bindings.resolve(name, scope)
        if owner is None or owner.kind == "class" or len(binds) != 1 or binds[0].kind != "def":
            return None
        fn = binds[0].node
        returns, generator = _returns(fn)
        if fn.decorators or generator:
            return None  # a decorator may change what a call returns
        return self.ctx.bindings.scopes[fn], returns

    @staticmethod
    def _looks_like_loss(base) -> bool:
        name = base.value if isinstance(base, cst.Name) else (
            base.attr.value if isinstance(base, cst.Attribute) else None)
        return bool(name and looks_like_loss(name) and not name.lower().endswith("losses"))

    # --- is it 0-dim? A reason string, or "" ---------------------------------------
    def _scalar(self, expr, scope, seen: set) -> str:
        if isinstance(expr, cst.Call):
            return self._scalar_call(expr, scope, seen)
        if isinstance(expr, cst.Name):
            return self._scalar_name(expr.value, scope, seen)
        if isinstance(expr, cst.Attribute):
            key = dotted(expr)
            if key and key.startswith("self.") and key not in seen:
                vals = _attr_values(self.ctx.bindings.attrs(key))
                if vals and all(op == "=" and v is not None for op, v in vals):
                    seen = seen | {key}
                    if all(self._scalar(v, scope, seen) for _, v in vals):
                        return f"`{key}` is assigned a 0-dim value"
            return ""
        if isinstance(expr, cst.BinaryOperation) and type(expr.operator).__name__ in (
                "Add", "Subtract", "Multiply", "Divide", "Power"):
            sides = [expr.left, expr.right]
            tensors = [s for s in sides if not (_is_number(s) or self._number_name(s, scope))]
            if tensors and all(self._scalar(s, scope, seen) for s in tensors):
                return "arithmetic of 0-dim values"
            return ""
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            return self._scalar(expr.expression, scope, seen)
        return ""

    def _number_name(self, expr, scope) -> bool:
        """`mb_size` in `loss / mb_size`: a name bound only to number literals."""
        if not isinstance(expr, cst.Name):
            return False
        vals = _values(self.ctx.bindings.resolve(expr.value, scope)[1])
        return bool(vals) and all(op == "=" and _is_number(v) for op, v, _ in vals)

    def _scalar_name(self, name: str, scope, seen: set) -> str:
        if name in seen:
            return ""
        vals = _values(self.ctx.bindings.resolve(name, scope)[1])
        if not vals:
            return ""
        seen = seen | {name}
        # `loss = 0` then `loss += crit(...)`: the tensor comes from the augmented one.
        if not [v for op, v, _ in vals if not _is_number(v)]:
            return ""
        reason = ""
        for op, v, where in vals:
            if op not in ("=", "AddAssign", "SubtractAssign", "MultiplyAssign", "DivideAssign"):
                return ""
            # A number binding (`dev_loss = 0`) is no tensor of another shape: every
            # use this rule asks about needs a 0-dim tensor or a number there.
            if _is_number(v):
                continue
            why = self._scalar(v, where, seen)
            if not why:
                return ""
            reason = reason or why
        return f"assigned only 0-dim values: {reason}"

    def _scalar_call(self, call: cst.Call, scope, seen: set) -> str:
        func = call.func
        q = self.ctx.imports.qualify(func)
        if any(a.star for a in call.args):
            return ""
        pos = positional(call)
        kws = {a.keyword.value for a in call.args if a.keyword is not None}
        kind = loss_kind(q)
        if kind is not None and kind[0] == "F":
            if len(pos) <= kind[2] and call_reduction(call, kind[1]) not in (None, "none"):
                return f"`{_short(self.ctx.code(func))}` is a loss with a reducing `reduction`"
            return ""
        if q in _REDUCE_FUNCS:
            if len(pos) == 1 and kws <= _SCALAR_KW | ({"p"} if q == "torch.norm" else set()):
                return f"`{_short(self.ctx.code(func))}` over the whole tensor"
            return ""
        if q in _PAIR_FUNCS:
            return f"`{_short(self.ctx.code(func))}` returns a 0-dim tensor" if len(pos) == 2 else ""
        if isinstance(func, cst.Attribute) and q is None:
            meth = func.attr.value
            if meth in _REDUCE_METHODS:
                extra = {"p"} if meth == "norm" else set()
                if meth == "norm" and len(pos) == 1 and _is_number(pos[0].value) and kws <= _SCALAR_KW:
                    return "`.norm(p)` over the whole tensor"
                if not pos and kws <= _SCALAR_KW | extra:
                    return f"`.{meth}()` over the whole tensor"
                return ""
            if meth in ("dot", "dist") and len(pos) >= 1:
                return f"`.{meth}()` returns a 0-dim tensor"
            if meth in _SAME_SHAPE:
                inner = self._scalar(func.value, scope, seen)
                return inner
        if isinstance(func, cst.Name) and ("def:" + func.value) not in seen:
            fn = self._function(func.value, scope)
            if fn is not None and fn[1] and all(
                    r is not None and self._scalar(r, fn[0], seen | {"def:" + func.value})
                    for r in fn[1]):
                return f"`{func.value}()` returns a 0-dim value"
        # A criterion: nn.MSELoss()(a, b), crit(a, b), self.crit(a, b)
        if self._is_criterion(func, scope, seen) and not kws - {"weight"}:
            return f"`{_short(self.ctx.code(func))}` is a loss module with a reducing `reduction`"
        return ""

    def _is_criterion(self, func, scope, seen: set) -> bool:
        if (isinstance(func, cst.Call) and isinstance(func.func, cst.Attribute)
                and func.func.attr.value in _MODULE_MOVES):
            # nn.MSELoss().cuda(), criterion.to(device): the same module
            return self._is_criterion(func.func.value, scope, seen)
        if isinstance(func, cst.Call):
            kind = loss_kind(self.ctx.imports.qualify(func.func))
            return bool(kind and kind[0] == "nn" and call_reduction(func, kind[1]) not in (None, "none"))
        if isinstance(func, cst.Name):
            key = func.value
            if key in seen:
                return True  # `crit = crit.cuda()`: as good as its other bindings
            vals = _values(self.ctx.bindings.resolve(key, scope)[1])
            return bool(vals) and all(op == "=" and self._is_criterion(v, where, seen | {key})
                                      for op, v, where in vals)
        if isinstance(func, cst.Attribute):
            key = dotted(func)
            if not key or not key.startswith("self."):
                return False
            if key in seen:
                return True
            vals = _attr_values(self.ctx.bindings.attrs(key))
            return bool(vals) and all(
                op == "=" and v is not None and self._is_criterion(v, scope, seen | {key}) for op, v in vals)
        return False


def _values(binds) -> Optional[list]:
    """[(op, value, scope it runs in)] for bindings this rule can follow:
    `=` of a whole value or of a literal tuple's element, and augmented
    assignments; None when some other binding (a parameter, a loop, a
    `with`...) makes the name unknowable, or when there is none."""
    out = []
    for b in binds:
        if b.kind == "annotation":
            continue  # `x: int` binds no value
        value = b.element() if b.kind == "assign" else b.value if b.kind == "augassign" else None
        if value is None:
            return None
        out.append(("=" if b.kind == "assign" else b.op, value, b.scope))
    return out or None


def _attr_values(binds) -> list:
    """[(op, value)] for `self.x` bindings; ("?", None) where not followed."""
    out = []
    for b in binds:
        if b.kind == "annotation":
            continue
        value = b.element() if b.kind == "assign" else b.value if b.kind == "augassign" else None
        out.append(("=" if b.kind == "assign" else b.op, value) if value is not None else ("?", None))
    return out


def _returns(fn: cst.FunctionDef) -> tuple:
    """(return values, whether fn is a generator or coroutine) of fn's own body."""
    returns, gen = [], []

    def enter(n):
        if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        if isinstance(n, cst.Return):
            returns.append(n.value)
        elif isinstance(n, (cst.Yield, cst.Await)):
            gen.append(n)
        return True

    walk(fn.body, enter)
    return returns, bool(gen) or bool(fn.asynchronous)


def _is_py_number(expr) -> bool:
    """A number literal, or `len(...)`/`int(...)`/`float(...)`: never a tensor."""
    if _is_number(expr):
        return True
    return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name)
            and expr.func.value in ("len", "int", "float"))


def _is_loss_call(expr) -> bool:
    """`criterion(...)`, `self.loss_fn(...)`: a call whose callee is named like a loss."""
    if not isinstance(expr, cst.Call):
        return False
    func = expr.func
    name = func.value if isinstance(func, cst.Name) else (
        func.attr.value if isinstance(func, cst.Attribute) else "")
    return looks_like_loss(name)


def _short(src: str, limit: int = 48) -> str:
    src = " ".join(src.split())
    return src if len(src) <= limit else src[: limit - 3] + "..."


def _is_method_call(node, name: str) -> bool:
    return (isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == name)


def _strip_data(expr):
    """For the object of `[0]`: (x, numpy) when it is `x.data`, `x.data.cpu()`,
    `x.data.numpy()`, `x.data.cpu().numpy()` or `x.detach().cpu().numpy()`;
    (None, False) otherwise."""
    numpy = False
    if _is_method_call(expr, "numpy"):
        numpy = True
        expr = expr.func.value
    if _is_method_call(expr, "cpu"):
        expr = expr.func.value
    if isinstance(expr, cst.Attribute) and expr.attr.value == "data":
        return expr.value, numpy
    if numpy and _is_method_call(expr, "detach"):
        return expr.func.value, numpy
    return None, False
