"""AD211: linear-algebra functions removed from (or deprecated in) torch 2.x."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..findings import SAFE, UNSAFE
from ..rule import Edit, Invalid, Rule, Valid
from ._helpers import in_version_fallback, is_false, is_true, kwarg, positional

# Removed: raise "deprecated since version 1.9 and is now removed" (or are gone).
REMOVED = ("symeig", "eig", "solve", "lstsq", "gels", "matrix_rank",
           # 0.4-era LAPACK names, gone since 1.x.
           "gesv", "potrf", "potrs", "potri", "trtrs", "btrifact", "btrisolve", "pstrf")
# Still there on 2.13, with a deprecation warning.
WARNS = ("qr", "cholesky", "chain_matmul", "triangular_solve", "lu", "lu_solve",
         "ger")  # ger: deprecated alias of outer (no warning yet)
# Tensor methods that were removed with the functions. `.symeig` is torch's
# alone and is fixed; the other names are common elsewhere (sympy's
# `Matrix.solve`), so those are reported only, and only in files that use torch.
METHODS = ("symeig", "eig", "solve", "lstsq", "gels")
# What the first element of the old tuple result is called.
_FIRST = {"eig": "eigenvalues", "solve": "solution", "gesv": "solution", "lstsq": "solution",
          "gels": "solution", "triangular_solve": "solution"}


def _arg(call: cst.Call, index: int, name: str) -> Optional[cst.Arg]:
    a = kwarg(call, name)
    if a is not None:
        return a
    pos = positional(call)
    return pos[index] if len(pos) > index else None


def _kw(name: str, value: cst.BaseExpression) -> cst.Arg:
    eq = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    return cst.Arg(value=value, keyword=cst.Name(name), equal=eq)


def _call(func: str, args: list) -> cst.Call:
    """`func(args...)` with plain `, ` separators; the values keep their own text."""
    out = []
    for i, a in enumerate(args):
        a = a if isinstance(a, cst.Arg) else cst.Arg(value=a)
        last = i == len(args) - 1
        out.append(a.with_changes(comma=cst.MaybeSentinel.DEFAULT if last else
                                  cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
    return cst.Call(func=cst.parse_expression(func), args=out)


def _only_first(ctx, call: cst.Call, fn: str):
    """How the old `(first, second)` result is used, when only `first` is:
    returns (node to replace, wrap) where wrap(new) builds its replacement."""
    parent = ctx.parent(call)
    if isinstance(parent, cst.Subscript) and parent.value is call and len(parent.slice) == 1:
        idx = parent.slice[0].slice
        if isinstance(idx, cst.Index) and isinstance(idx.value, cst.Integer) and idx.value.value == "0":
            return parent, lambda new: new
    if isinstance(parent, cst.Attribute) and parent.value is call and parent.attr.value == _FIRST.get(fn):
        return parent, lambda new: new
    if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1:
        target = parent.targets[0].target
        if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
            first, second = (e.value for e in target.elements)
            if (isinstance(second, cst.Name) and second.value == "_"
                    and not isinstance(target.elements[0], cst.StarredElement)):
                return parent, lambda new: parent.with_changes(
                    targets=[parent.targets[0].with_changes(target=first)], value=new)
    return None, None


class RemovedLinalg(Rule):
    """
    Linear-algebra functions removed from PyTorch 2.x, or deprecated there.

    ## What it does
    Finds calls to `torch.symeig`, `torch.eig`, `torch.solve`, `torch.lstsq`,
    `torch.gels` and `torch.matrix_rank`, the 0.4-era LAPACK names `torch.gesv`,
    `torch.potrf`, `torch.potrs`, `torch.potri`, `torch.trtrs`,
    `torch.btrifact`, `torch.btrisolve`, `torch.pstrf` (and the tensor methods `.symeig()`,
    `.eig()`, `.solve()`, `.lstsq()`, `.gels()`), which fail on torch 2.13
    ("This function was deprecated since version 1.9 and is now removed", or
    `AttributeError` for `gels`), and calls to `torch.qr`, `torch.cholesky`,
    `torch.chain_matmul`, `torch.triangular_solve`, `torch.lu` and
    `torch.lu_solve`, which still run with a deprecation warning, and
    `torch.ger`, a deprecated alias of `torch.outer`.

    ## Why it matters
    Code from 2017-2020 that calls the removed functions does not run at all
    on a current PyTorch; the replacements in `torch.linalg` take their
    arguments in a different order (`solve(B, A)` solved `A X = B`;
    `linalg.solve(A, B)` does) and return different results (`eig` returns
    complex values; `solve` no longer returns the LU factors), so a rename is
    not enough.

    ## Example
    ```python
    e, V = torch.symeig(S, eigenvectors=True)
    x, _ = torch.solve(b, A)
    ev = torch.eig(M)[0]
    r = torch.matrix_rank(S, symmetric=True)
    L = torch.cholesky(S, upper=True)
    P = torch.chain_matmul(A, B, C)
    ```

    ## Fix
    ```python
    e, V = torch.linalg.eigh(S, UPLO="U")
    x = torch.linalg.solve(A, b)
    ev = torch.view_as_real(torch.linalg.eigvals(M))
    r = torch.linalg.matrix_rank(S, hermitian=True)
    L = torch.linalg.cholesky(S).mH
    P = torch.linalg.multi_dot([A, B, C])
    ```
    - `symeig(A, eigenvectors, upper=True)` becomes `linalg.eigh(A, UPLO="U")`
      (`"L"` for `upper=False`): `symeig` read the upper triangle by default,
      `eigh` the lower one.
    - `solve(B, A)` returns `(solution, LU)`; where only the solution is used
      (`[0]`, `.solution`, or `x, _ = ...`) it becomes `linalg.solve(A, B)`.
    - `eig(A)` returns eigenvalues as an `(n, 2)` real tensor of (real,
      imaginary) columns; `torch.view_as_real(linalg.eigvals(A))` is that same
      layout. With `eigenvectors=True` it is reported only: the old packed
      real eigenvector format has no one-line equivalent.
    - `lstsq(B, A)` / `gels(B, A)` become `linalg.lstsq(A, B).solution`.
    - `matrix_rank(A, tol, symmetric)` becomes
      `linalg.matrix_rank(A, atol=tol, hermitian=symmetric)`.
    - `qr(A, some)` becomes `linalg.qr(A, mode="reduced")` (`"complete"` for
      `some=False`); `cholesky(A, upper=True)` becomes `linalg.cholesky(A).mH`;
      `chain_matmul(a, b, ...)` becomes `linalg.multi_dot([a, b, ...])`;
      `ger(u, v)` becomes `outer(u, v)`.
    - `gesv` is `solve`; `potrf(A)` becomes `linalg.cholesky(A).mH` (it
      returned the upper factor by default); `potrs(b, u)` and `potri(u)`
      become `cholesky_solve(b, u, upper=True)` and
      `cholesky_inverse(u, upper=True)` (their `upper` default flipped).
    - `triangular_solve(b, A, upper, transpose, unitriangular)`, where only
      the solution is used, becomes `linalg.solve_triangular(A, b, upper=upper)`
      (`A.mT` and `upper=not upper` for `transpose=True`; `upper` defaulted to
      True and has no default now); `lu(A)` becomes `linalg.lu_factor(A)`
      (`lu_factor_ex` for `get_infos=True`: the same tuple); `lu_solve(b, LU,
      pivots)` becomes `linalg.lu_solve(LU, pivots, b)`.
    - `trtrs`, `btrifact`, `btrisolve`, `pstrf`, `torch.utils.serialization.load_lua`
      and the tensor methods other than `.symeig()` are reported only.

    ## Fix safety
    Safe for `symeig`, `solve`/`gesv`, `eig` (eigenvalues only), `matrix_rank`,
    `qr`, `cholesky`/`potrf`, `potrs`, `potri`, `chain_matmul`, `ger`,
    `triangular_solve`, `lu` and `lu_solve`: each
    replacement computes the same values (checked on torch 2.13: `eigh` with the same triangle, `view_as_real` of
    the eigenvalues, `multi_dot` with at least two matrices; eigenvectors are,
    as always, unique only up to sign). Unsafe for `lstsq`/`gels`: for an
    overdetermined system the old solution had `max(m, n)` rows (the first `n`
    are the solution, the rest residual information); `linalg.lstsq` returns
    the `n` rows only, so code that slices `[:n]` still works but code that
    reads the residual rows changes. A result whose second element is used
    (the LU factors of `solve`) is reported only.
    """

    code = "AD211"
    name = "removed-linalg-function"
    summary = ("`torch.symeig`/`eig`/`solve`/`lstsq`/`gels`/`matrix_rank` (removed) and "
               "`qr`/`cholesky`/`chain_matmul` (deprecated)")
    fix_safety = SAFE
    # Dotted (`torch.eig`, `A.eig`): bare `eig`, `lu`, `ger` are inside
    # `weight`, `value`, `larger` and admitted most files. A from-import of a
    # name is caught by its import line.
    tokens = tuple("." + n for n in REMOVED + WARNS) + ("load_lua", "from torch import")
    # Every finding is a call of one of the names (or names load_lua).
    also_tokens = (("torch",), tuple(n + "(" for n in REMOVED + WARNS) + ("load_lua",))

    VALID = [
        Valid("""
            import torch
            try:
                e, V = torch.linalg.eigh(S)
            except AttributeError:
                e, V = torch.symeig(S, eigenvectors=True, upper=False)
        """, note="the fallback for a torch without torch.linalg"),
        Valid("""
            import torch
            e, V = torch.linalg.eigh(S)
            x = torch.linalg.solve(A, b)
            L = torch.linalg.cholesky(S)
        """),
        Valid("""
            import numpy as np
            x = np.linalg.solve(A, b)
            w, v = np.linalg.eig(M)
        """, note="numpy, not torch"),
        Valid("""
            import sympy
            import torch
            sol = M.solve(b)
        """, note="a .solve method with one argument may be sympy's: not reported"),
        Valid("""
            import torch
            q, r = torch.linalg.qr(A, mode="complete")
            P = torch.linalg.multi_dot([A, B, C])
        """),
    ]
    INVALID = [
        Invalid("""
            import torch
            e, V = torch.symeig(S, eigenvectors=True)
        """, """
            import torch
            e, V = torch.linalg.eigh(S, UPLO="U")
        """, line=2, column=8, message="was removed (it raises on torch 2.x)"),
        Invalid("""
            import torch
            e, V = torch.symeig(S, True, False)
        """, """
            import torch
            e, V = torch.linalg.eigh(S, UPLO="L")
        """, line=2, column=8, message="was removed (it raises on torch 2.x)"),
        Invalid("""
            import torch as th
            e = S.symeig()[0]
        """, """
            import torch as th
            e = th.linalg.eigh(S, UPLO="U")[0]
        """, line=2, column=5, message="was removed (it raises on torch 2.x)"),
        Invalid("""
            import torch
            x, _ = torch.solve(b, A)
        """, """
            import torch
            x = torch.linalg.solve(A, b)
        """, line=2, column=8, message="was removed (it raises on torch 2.x)"),
        Invalid("""
            import torch
            y = torch.solve(b, A)[0] + torch.solve(c, A).solution
        """, """
            import torch
            y = torch.linalg.solve(A, b) + torch.linalg.solve(A, c)
        """, count=2, line=2, column=5, message="was removed (it raises on torch 2.x)"),
        Invalid("""
            import torch
            x, lu = torch.solve(b, A)
        """, None, note="the LU factors are used: reported only",
            line=2, column=9, message="was removed (it raises on torch 2.x)"),
        Invalid("""
            import torch
            ev = torch.eig(M)[0]
        """, """
            import torch
            ev = torch.view_as_real(torch.linalg.eigvals(M))
        """, line=2, column=6, message="was removed (it raises on torch 2.x)"),
        Invalid("""
            import torch
            ev, vec = torch.eig(M, eigenvectors=True)
        """, None, note="packed real eigenvectors: reported only",
            line=2, column=11, message="was removed (it raises on torch 2.x)"),
        Invalid("""
            import torch
            x = torch.lstsq(b, A)[0][:3]
        """, """
            import torch
            x = torch.linalg.lstsq(A, b).solution[:3]
        """, unsafe=True, line=2, column=5, message="was removed (it raises on torch 2.x)"),
        Invalid("""
            import torch
            r = torch.matrix_rank(S, 1e-5, True)
        """, """
            import torch
            r = torch.linalg.matrix_rank(S, atol=1e-5, hermitian=True)
        """, line=2, column=5, message="was removed (it raises on torch 2.x)"),
        Invalid("""
            import torch
            q, r = torch.qr(A, some=False)
            U = torch.cholesky(S, upper=True)
            P = torch.chain_matmul(a, b, c)
            G = torch.ger(u, v)
        """, """
            import torch
            q, r = torch.linalg.qr(A, mode="complete")
            U = torch.linalg.cholesky(S).mH
            P = torch.linalg.multi_dot([a, b, c])
            G = torch.outer(u, v)
        """, count=4, line=2, column=8, message="is deprecated (it warns on torch 2.x)"),
        Invalid("""
            import torch
            x = torch.triangular_solve(b, U)[0]
            y, _ = torch.triangular_solve(b, L, upper=False, transpose=True)
            LU, piv = torch.lu(A)
            z = torch.lu_solve(b, LU, piv)
        """, """
            import torch
            x = torch.linalg.solve_triangular(U, b, upper=True)
            y = torch.linalg.solve_triangular(L.mT, b, upper=True)
            LU, piv = torch.linalg.lu_factor(A)
            z = torch.linalg.lu_solve(LU, piv, b)
        """, count=4, line=2, column=5, message="is deprecated (it warns on torch 2.x)"),
        Invalid("""
            import torch
            X, LU = torch.gesv(B, A)
            U = torch.potrf(K)
            alpha = torch.potrs(y, U)
        """, """
            import torch
            X, LU = torch.gesv(B, A)
            U = torch.linalg.cholesky(K).mH
            alpha = torch.cholesky_solve(y, U, upper=True)
        """, count=3, note="gesv's LU is used: reported only; potrf/potrs were upper by default",
            line=2, column=9, message="was removed (it raises on torch 2.x)"),
        Invalid("""
            import torch
            x = b.solve(A)[0]
        """, None, note="tensor method .solve: reported only",
            line=2, column=5, message="the tensor method `.solve()` was removed in PyTorch 1.9+"),
        Invalid("""
            from torch.utils.serialization import load_lua
            net = load_lua("model.t7")
        """, None, note="no replacement in torch", line=1, column=39, message="was removed in PyTorch 1.0"),
        Invalid("""
            import torch
            q = torch.qr()
            l = torch.cholesky(upper=True)
            r = torch.matrix_rank(tol=1e-5)
        """, None, count=3, note="no matrix given (a test fixture's shape): reported only, never a half-built call",
            line=2, column=5, message="is deprecated (it warns on torch 2.x)"),
    ]

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar) or node.module is None or not any(
                isinstance(a.name, cst.Name) and a.name.value == "load_lua" for a in node.names):
            return
        if in_version_fallback(self.ctx, node):
            return  # the old spelling for an old torch
        for alias in node.names:
            q = self.ctx.imports.qualify(cst.Name(alias.evaluated_alias or alias.evaluated_name))
            if q == "torch.utils.serialization.load_lua":
                self.report(alias, "`torch.utils.serialization.load_lua` was removed in PyTorch 1.0; "
                                   "Lua Torch `.t7` files can be read with the `torchfile` package")

    def visit_Call(self, node: cst.Call) -> None:
        q = self.ctx.imports.qualify(node.func)
        name = q.rsplit(".", 1)[-1] if q else node.func.attr.value if isinstance(node.func, cst.Attribute) else ""
        if name not in REMOVED and name not in WARNS and name != "load_lua":
            return  # nothing below reports it; in_version_fallback walks the parents
        if in_version_fallback(self.ctx, node):
            return  # the old spelling for an old torch
        if q and q.startswith("torch.") and q.count(".") == 1:
            fn = q.split(".")[1]
            if fn in REMOVED or fn in WARNS:
                self._function(node, fn, list(node.args))
                return
        if q == "torch.utils.serialization.load_lua":
            if isinstance(node.func, cst.Attribute):  # a from-import is reported at the import
                self.report(node, "`torch.utils.serialization.load_lua` was removed in PyTorch 1.0; "
                                  "Lua Torch `.t7` files can be read with the `torchfile` package")
            return
        if (isinstance(node.func, cst.Attribute) and node.func.attr.value in METHODS
                and self.ctx.imports.mentions_torch() and q is None):
            self._method(node, node.func.attr.value)

    # --- helpers ------------------------------------------------------------
    def _torch(self) -> Optional[str]:
        return self.ctx.imports.module_alias("torch")

    def _method(self, node: cst.Call, fn: str) -> None:
        func = node.func
        pos = positional(node)
        if fn == "symeig":
            # self.symeig(eigenvectors, upper) == torch.symeig(self, ...)
            self._function(node, fn, [cst.Arg(value=func.value)] + list(node.args), method=True)
            return
        # Only the shapes of the old torch signatures: solve/lstsq/gels took
        # one matrix; eig took no positional argument but `eigenvectors`.
        if fn in ("solve", "lstsq", "gels") and not (len(pos) == 1 and len(node.args) == 1):
            return
        if fn == "eig" and (pos or any(a.keyword is None or a.keyword.value != "eigenvectors"
                                       for a in node.args)):
            return
        parent = self.ctx.parent(node)
        if fn in ("solve", "eig") and not (
                (isinstance(parent, cst.Subscript) and parent.value is node)
                or (isinstance(parent, cst.Attribute) and parent.attr.value in ("solution", "eigenvalues"))
                or (isinstance(parent, cst.Assign) and isinstance(parent.targets[0].target, cst.Tuple))):
            return  # not used as the old (result, extra) tuple: likely another library
        self.report(node, f"the tensor method `.{fn}()` was removed in PyTorch 1.9+ (if this is a "
                          f"tensor); use the `torch.linalg` function (see AD211's page)")

    def _function(self, node: cst.Call, fn: str, args: list, method: bool = False) -> None:
        removed = fn in REMOVED
        old = self.ctx.code(node.func)
        why = ("was removed (it raises on torch 2.x)" if removed
               else "is deprecated (it warns on torch 2.x)")
        torch = self._torch()
        if any(a.star for a in args) or torch is None:
            self.report(node, f"`{old}` {why}; use its `torch.linalg` form")
            return
        build = getattr(self, f"_fix_{fn}", None)
        if build is None:
            self.report(node, f"`{old}` {why}; use its `torch.linalg` form (reported only: the "
                              f"replacement returns a different result structure)")
            return
        build(node, old, why, torch, args)

    def _pick(self, args: list, names: tuple):
        """Map the old signature's (name, ...) onto args; None if something is unknown."""
        fake = cst.Call(func=cst.Name("f"), args=args)
        known = set(names)
        if any(a.keyword is not None and a.keyword.value not in known for a in args):
            return None
        if len(positional(fake)) > len(names):
            return None
        got = [(_arg(fake, i, n).value if _arg(fake, i, n) is not None else None) for i, n in enumerate(names)]
        return None if got[0] is None else got  # the matrix itself is missing: the call fails as written

    def _bool(self, expr, default: bool):
        if expr is None:
            return default
        if is_true(expr):
            return True
        if is_false(expr):
            return False
        return None

    # --- one builder per function ------------------------------------------
    def _fix_symeig(self, node, old, why, torch, args):
        got = self._pick(args, ("input", "eigenvectors", "upper"))
        upper = self._bool(got[2], True) if got else None
        if got is None or upper is None:
            self.report(node, f"`{old}` {why}; use `torch.linalg.eigh(A, UPLO=\"U\")` "
                              f"(`\"L\"` for upper=False)")
            return
        new = _call(f"{torch}.linalg.eigh", [got[0], _kw("UPLO", cst.SimpleString('"U"' if upper else '"L"'))])
        self.report(node, f"`{old}` {why}; `torch.linalg.eigh` computes the same eigenvalues and "
                          f"eigenvectors (UPLO names the triangle symeig read)",
                    replacement=new, fix_title="Use `torch.linalg.eigh`")

    def _first_only(self, node, old, why, fn, new, fix=SAFE, note=""):
        target, wrap = _only_first(self.ctx, node, fn)
        if target is None:
            self.report(node, f"`{old}` {why}; its replacement returns only the "
                              f"{_FIRST[fn]}, and the second result here is used: rewrite by hand")
            return
        self.report(node, f"`{old}` {why}; {note}", edits=[Edit(target, wrap(new))], fix=fix,
                    fix_title="Use `torch.linalg`")

    def _fix_solve(self, node, old, why, torch, args, fn="solve"):
        got = self._pick(args, ("input", "A"))
        if got is None or None in got:
            self.report(node, f"`{old}` {why}; `solve(B, A)` is `torch.linalg.solve(A, B)`")
            return
        new = _call(f"{torch}.linalg.solve", [got[1], got[0]])
        self._first_only(node, old, why, fn, new,
                         note="`solve(B, A)` solved A X = B; `torch.linalg.solve(A, B)` does, "
                              "and returns the solution alone")

    def _fix_gesv(self, node, old, why, torch, args):
        self._fix_solve(node, old, why, torch, args, fn="gesv")

    def _fix_potrf(self, node, old, why, torch, args):
        # potrf returned the upper factor by default.
        self._fix_cholesky(node, old, why, torch, args, default_upper=True)

    def _fix_potrs(self, node, old, why, torch, args):
        self._upper_default(node, old, why, torch, args, ("input", "input2", "upper"), "cholesky_solve")

    def _fix_potri(self, node, old, why, torch, args):
        self._upper_default(node, old, why, torch, args, ("input", "upper"), "cholesky_inverse")

    def _upper_default(self, node, old, why, torch, args, names, new_fn):
        """potrs/potri -> cholesky_solve/cholesky_inverse: same arguments, but
        `upper` defaulted to True then and to False now, so it is written out."""
        got = self._pick(args, names)
        upper = self._bool(got[-1], True) if got else None
        if got is None or upper is None or None in got[:-1]:
            self.report(node, f"`{old}` {why}; use `torch.{new_fn}` (its `upper` defaults to False)")
            return
        new_args = list(got[:-1]) + [_kw("upper", cst.Name("True" if upper else "False"))]
        self.report(node, f"`{old}` {why}; it is `torch.{new_fn}` with `upper` written out "
                          f"(the old default was True, the new one is False)",
                    replacement=_call(f"{torch}.{new_fn}", new_args), fix_title=f"Use `torch.{new_fn}`")

    def _fix_eig(self, node, old, why, torch, args):
        got = self._pick(args, ("input", "eigenvectors"))
        vec = self._bool(got[1], False) if got else None
        if got is None or vec is not False:
            self.report(node, f"`{old}` {why}; `torch.linalg.eig` returns complex eigenvalues and "
                              f"eigenvectors, not the old packed real format: rewrite by hand")
            return
        new = _call(f"{torch}.view_as_real", [_call(f"{torch}.linalg.eigvals", [got[0]])])
        self._first_only(node, old, why, "eig", new,
                         note="`view_as_real(torch.linalg.eigvals(A))` gives the old (n, 2) "
                              "(real, imaginary) layout")

    def _fix_lstsq(self, node, old, why, torch, args):
        got = self._pick(args, ("input", "A"))
        if got is None or None in got:
            self.report(node, f"`{old}` {why}; `lstsq(B, A)` is `torch.linalg.lstsq(A, B).solution`")
            return
        new = cst.Attribute(value=_call(f"{torch}.linalg.lstsq", [got[1], got[0]]), attr=cst.Name("solution"))
        self._first_only(node, old, why, "lstsq", new, fix=UNSAFE,
                         note="`torch.linalg.lstsq(A, B).solution` solves the same problem but has "
                              "n rows, where the old solution had max(m, n) (unsafe if the extra "
                              "rows are read)")

    _fix_gels = _fix_lstsq

    def _fix_matrix_rank(self, node, old, why, torch, args):
        got = self._pick(args, ("input", "tol", "symmetric"))
        if got is None:
            self.report(node, f"`{old}` {why}; use `torch.linalg.matrix_rank`")
            return
        new_args = [got[0]]
        if got[1] is not None:
            new_args.append(_kw("atol", got[1]))
        if got[2] is not None and not is_false(got[2]):
            new_args.append(_kw("hermitian", got[2]))
        self.report(node, f"`{old}` {why}; `torch.linalg.matrix_rank` (tol -> atol, "
                          f"symmetric -> hermitian) computes the same rank",
                    replacement=_call(f"{torch}.linalg.matrix_rank", new_args),
                    fix_title="Use `torch.linalg.matrix_rank`")

    def _fix_qr(self, node, old, why, torch, args):
        got = self._pick(args, ("input", "some"))
        some = self._bool(got[1], True) if got else None
        if got is None or some is None:
            self.report(node, f"`{old}` {why}; use `torch.linalg.qr(A, mode=\"reduced\")` "
                              f"(`\"complete\"` for some=False)")
            return
        new_args = [got[0]] + ([] if some else [_kw("mode", cst.SimpleString('"complete"'))])
        self.report(node, f"`{old}` {why}; `torch.linalg.qr` computes the same factors",
                    replacement=_call(f"{torch}.linalg.qr", new_args), fix_title="Use `torch.linalg.qr`")

    def _fix_cholesky(self, node, old, why, torch, args, default_upper=False):
        got = self._pick(args, ("input", "upper"))
        upper = self._bool(got[1], default_upper) if got else None
        if got is None or upper is None:
            self.report(node, f"`{old}` {why}; use `torch.linalg.cholesky(A)` "
                              f"(`.mH` of it for upper=True)")
            return
        new = _call(f"{torch}.linalg.cholesky", [got[0]])
        if upper:
            new = cst.Attribute(value=new, attr=cst.Name("mH"))
        self.report(node, f"`{old}` {why}; `torch.linalg.cholesky` computes the same factor",
                    replacement=new, fix_title="Use `torch.linalg.cholesky`")

    def _fix_triangular_solve(self, node, old, why, torch, args):
        # triangular_solve(b, A) returned (solution, copy of A); solve_triangular
        # returns the solution; transpose=True solves A^T X = b, whose matrix
        # has the other triangle.
        got = self._pick(args, ("input", "A", "upper", "transpose", "unitriangular"))
        flags = [self._bool(got[i], d) for i, d in ((2, True), (3, False), (4, False))] if got else [None]
        if got is None or None in got[:2] or None in flags or (
                flags[1] and not isinstance(got[1], (cst.Name, cst.Attribute, cst.Call, cst.Subscript))):
            self.report(node, f"`{old}` {why}; use `torch.linalg.solve_triangular(A, b, upper=...)` "
                              f"(`A.mT` and the other triangle for transpose=True)")
            return
        upper, transpose, unit = flags
        mat = cst.Attribute(value=got[1], attr=cst.Name("mT")) if transpose else got[1]
        new_args = [mat, got[0], _kw("upper", cst.Name(str(upper != transpose)))]
        if unit:
            new_args.append(_kw("unitriangular", cst.Name("True")))
        self._first_only(node, old, why, "triangular_solve", _call(f"{torch}.linalg.solve_triangular", new_args),
                         note="`torch.linalg.solve_triangular(A, b, upper=...)` returns the same "
                              "solution (its `upper` has no default; `transpose` is `A.mT` with the "
                              "other triangle)")

    def _fix_lu(self, node, old, why, torch, args):
        got = self._pick(args, ("A", "pivot", "get_infos"))
        infos = self._bool(got[2], False) if got else None
        if got is None or got[0] is None or infos is None:
            self.report(node, f"`{old}` {why}; use `torch.linalg.lu_factor` (`lu_factor_ex` for "
                              f"get_infos=True)")
            return
        fn = "lu_factor_ex" if infos else "lu_factor"
        new_args = [got[0]] + ([_kw("pivot", got[1])] if got[1] is not None else [])
        self.report(node, f"`{old}` {why}; `torch.linalg.{fn}` returns the same (LU, pivots"
                          f"{', infos' if infos else ''})",
                    replacement=_call(f"{torch}.linalg.{fn}", new_args), fix_title=f"Use `torch.linalg.{fn}`")

    def _fix_lu_solve(self, node, old, why, torch, args):
        got = self._pick(args, ("input", "LU_data", "LU_pivots"))
        if got is None or None in got:
            self.report(node, f"`{old}` {why}; `lu_solve(b, LU, pivots)` is "
                              f"`torch.linalg.lu_solve(LU, pivots, b)`")
            return
        self.report(node, f"`{old}` {why}; `torch.linalg.lu_solve(LU, pivots, b)` takes the "
                          f"right-hand side last and returns the same solution",
                    replacement=_call(f"{torch}.linalg.lu_solve", [got[1], got[2], got[0]]),
                    fix_title="Use `torch.linalg.lu_solve`")

    def _fix_ger(self, node, old, why, torch, args):
        got = self._pick(args, ("input", "vec2"))
        if got is None or None in got:
            self.report(node, f"`{old}` is a deprecated alias of `torch.outer`")
            return
        self.report(node, f"`{old}` is a deprecated alias of `torch.outer` (same arguments)",
                    replacement=_call(f"{torch}.outer", got), fix_title="Use `torch.outer`")

    def _fix_chain_matmul(self, node, old, why, torch, args):
        if len(args) < 2 or any(a.keyword is not None for a in args):
            self.report(node, f"`{old}` {why}; use `torch.linalg.multi_dot([...])`")
            return
        lst = cst.List(elements=[cst.Element(value=a.value, comma=cst.Comma(
            whitespace_after=cst.SimpleWhitespace(" ")) if i < len(args) - 1 else cst.MaybeSentinel.DEFAULT)
            for i, a in enumerate(args)])
        self.report(node, f"`{old}` {why}; `torch.linalg.multi_dot` takes the matrices as a list",
                    replacement=_call(f"{torch}.linalg.multi_dot", [lst]),
                    fix_title="Use `torch.linalg.multi_dot`")
