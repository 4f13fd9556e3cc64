"""Lightning's optimizer phases: one method, called once per optimizer.

    def training_step(self, batch, batch_idx, optimizer_idx):   # or loss_function(self, *args, **kwargs)
        if optimizer_idx == 0:
            self.d_fake = self.discriminator(self.encode(batch))
            return vae_loss + self.d_fake.mean()
        if optimizer_idx == 1:
            return F.cross_entropy(self.d_fake, labels)     # backwards through a freed graph

With several optimizers, Lightning (before 2.0) calls `training_step` with
`optimizer_idx` 0, 1, ... for each batch, backwards what each call returns
(its `"loss"` entry for a dict) and steps that optimizer before the next
call. Model code that takes `optimizer_idx` (a model's `loss_function`
called from such a `training_step` in another file) follows the same order.
Walked here as `self.m(..., optimizer_idx=0)` then `optimizer_idx=1`, each
result backwarded: the inlined call runs only the arm its index picks
(Scope._known_test), and what the first phase keeps on `self` reaches the
second. The order is read from the convention, not from a loop this file
shows, so what is found here is reported as inferred (Scope.driver_note)."""
from __future__ import annotations

import libcst as cst

from .walk import nodes

IDX = "optimizer_idx"


def phase_walks(analysis) -> list:
    """One scope per method of a class of this file that branches on `optimizer_idx == 0` and `== 1`."""
    return analysis.memo("_optimizer_phase_walks", lambda: _walks(analysis))


def _walks(analysis) -> list:
    from .flow import GiveUp, Scope

    out = []
    for cls in analysis.ctx.module.body:
        if type(cls) is not cst.ClassDef:
            continue
        for m in cls.body.body:
            if not isinstance(m, cst.FunctionDef) or not _phased(m):
                continue
            body = _body(m)
            if body is None:
                continue
            try:
                scope = Scope(analysis, body, params=["self", "_args", "_kwargs"], name=f"{m.name.value}[phases]")
                scope.self_class = cls.name.value
                scope.phase_backward = "Lightning"
                scope.run()
            except (GiveUp, RecursionError):
                continue
            scope.phase_owners = _phase_owners(cls, analysis)
            scope.driver_note = (f"`{m.name.value}` is taken to run as Lightning runs a step per optimizer: called "
                                 f"with {IDX} 0, its result backwarded and that optimizer stepped, then with "
                                 f"{IDX} 1 (read from its `{IDX}` arms; the caller is not seen)")
            out.append(scope)
    return out


def _phase_owners(cls, analysis) -> dict:
    """`_optimizer_0` -> (modules, its expression in `configure_optimizers`) for
    each phase whose optimizer's parameters can be read there (Lightning's
    order is its contract); Lightning zeroes each one's gradients before its phase."""
    from .lightning_optimizers import configured_elements, configured_owners

    owners = configured_owners(cls, analysis.names) or []
    elements = configured_elements(cls)
    return {f"_optimizer_{idx}": (owners[idx], elements[idx]) for idx in (0, 1)
            if idx < len(owners) and owners[idx] and idx < len(elements)}


def _phased(fn: cst.FunctionDef) -> bool:
    """Takes `optimizer_idx` (a parameter, or read out of **kwargs) and tests it against 0 and 1."""
    names = [p.name.value for p in fn.params.params + fn.params.kwonly_params]
    kwargs = fn.params.star_kwarg.name.value if isinstance(fn.params.star_kwarg, cst.Param) else None
    if IDX not in names and not (kwargs and any(isinstance(n, cst.SimpleString) and n.evaluated_value == IDX
                                                for n in nodes(fn.body))):
        return False
    seen = set()
    for n in nodes(fn.body):
        if isinstance(n, cst.Comparison) and isinstance(n.left, cst.Name) and n.left.value == IDX and \
                len(n.comparisons) == 1 and isinstance(n.comparisons[0].operator, cst.Equal) and \
                isinstance(n.comparisons[0].comparator, cst.Integer):
            seen.add(n.comparisons[0].comparator.value)
    return {"0", "1"} <= seen


def _body(fn: cst.FunctionDef):
    """`self.m(*_args, optimizer_idx=0)` then `optimizer_idx=1`, each followed by an
    unknown optimizer's step; the scope backwards what each call returns."""
    params = fn.params
    if not params.params or params.params[0].name.value != "self":
        return None
    args = []
    for p in params.params[1:]:
        if p.name.value == IDX:
            break
        args.append(f"_{p.name.value}")
    if isinstance(params.star_arg, cst.Param):
        args.append("*_args")
    # each phase's optimizer, not known here, steps after its backward
    lines = [line for idx in (0, 1) for line in (f"self.{fn.name.value}({', '.join(args + [f'{IDX}={idx}'])})",
                                                 f"_optimizer_{idx}.step()")]
    try:
        return list(cst.parse_module("\n".join(lines) + "\n").body)
    except cst.ParserSyntaxError:
        return None
