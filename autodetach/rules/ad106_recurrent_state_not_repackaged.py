"""AD106: recurrent state carried into the next batch without being cut."""
from __future__ import annotations

import libcst as cst

from ..analysis.decide import Problem
from ..findings import SAFE
from ..rule import Edit, Invalid, Rule, Valid
from ._ad1_shared import GraphRule, BACKWARD_TOKENS, path_note, body_child, code, line

HELPER = "_detach_state"
HELPER_SRC = '''def {name}(state):
    """Cut recurrent state from the previous batch's graph (truncated BPTT)."""
    if isinstance(state, {torch}.Tensor):
        return state.detach()
    if isinstance(state, (tuple, list)):
        return type(state)({name}(s) for s in state)
    return state
'''


class RecurrentStateNotRepackaged(GraphRule):
    """
    Recurrent state fed from one batch into the next without being detached.

    ## What it does
    Finds a training loop in which the hidden state returned by a recurrent
    model or cell (`out, h = rnn(x, h)`) is fed back in the next iteration,
    so that the next backward walks into the previous batch's graph.

    ## Why it matters
    Truncated backpropagation through time must cut the state at each batch.
    Without the cut the second backward fails with "Trying to backward
    through the graph a second time", and with `retain_graph=True` the graph
    (and the time per step) grows with the length of the stream.

    ## Example
    ```python
    for x, y in batches:
        out, hidden = lstm(x, hidden)
        loss = crit(head(out), y)
        opt.zero_grad(); loss.backward(); opt.step()
    ```

    ## Fix
    ```python
    for x, y in batches:
        hidden = tuple(s.detach() for s in hidden)
        out, hidden = lstm(x, hidden)
    ```
    Tensor state (`nn.RNN`, `nn.GRU`, cells) gets `h = h.detach()`; state of
    unknown structure, or state that may be None, goes through a small helper
    that the fix adds once per file.

    ## Fix safety
    Safe. This is the repackaging every truncated-BPTT language model does:
    the cut the author asked for by training on a stream in chunks. Against
    the `retain_graph=True` reference the numbers differ exactly by that
    truncation (verification reports it as `fixed`, and `changed` against
    the reference by design). State re-created every batch, and recurrence
    unrolled inside one iteration before a single backward, are left alone.
    When the finding rests on inferred roles (a model passed as an argument,
    state on `self` in a trainer method taken to run once per iteration),
    it says so and the fix is unsafe.
    """

    code = "AD106"
    kind = Problem.RECURRENT_STATE  # what the analysis calls this problem
    name = "recurrent-state-not-repackaged"
    summary = "recurrent state from the previous batch reaches this batch's backward; detach it"
    fix_safety = SAFE
    tokens = BACKWARD_TOKENS

    VALID = [
        Valid("""
            import torch
            from torch import nn
            rnn = nn.GRU(4, 8)
            opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
            for i in range(3):
                h = torch.zeros(1, 2, 8)
                out, h = rnn(torch.randn(3, 2, 4), h)
                opt.zero_grad()
                out.mean().backward()
                opt.step()
        """, note="state re-created every batch"),
        Valid("""
            import torch
            from torch import nn
            cell = nn.GRUCell(4, 8)
            opt = torch.optim.SGD(cell.parameters(), lr=0.1)
            for i in range(3):
                h = torch.zeros(2, 8)
                for t in range(5):
                    h = cell(torch.randn(2, 4), h)
                opt.zero_grad()
                h.pow(2).mean().backward()
                opt.step()
        """, note="recurrence unrolled inside one iteration"),
        Valid("""
            import torch
            from torch import nn
            rnn = nn.GRU(4, 8)
            opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
            h = torch.zeros(1, 2, 8)
            for i in range(3):
                h = h.detach()
                out, h = rnn(torch.randn(3, 2, 4), h)
                opt.zero_grad()
                out.mean().backward()
                opt.step()
        """, note="already repackaged"),
    ]
    INVALID = [
        Invalid("""
            import torch
            from torch import nn
            rnn = nn.GRU(4, 8)
            opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
            h = torch.zeros(1, 2, 8)
            for i in range(3):
                out, h = rnn(torch.randn(3, 2, 4), h)
                opt.zero_grad()
                out.mean().backward()
                opt.step()
        """, """
            import torch
            from torch import nn
            rnn = nn.GRU(4, 8)
            opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
            h = torch.zeros(1, 2, 8)
            for i in range(3):
                h = h.detach()
                out, h = rnn(torch.randn(3, 2, 4), h)
                opt.zero_grad()
                out.mean().backward()
                opt.step()
        """, line=7, column=5),
        Invalid("""
            import torch
            from torch import nn
            lstm = nn.LSTM(4, 8)
            opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
            hidden = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))
            for i in range(3):
                out, hidden = lstm(torch.randn(3, 2, 4), hidden)
                opt.zero_grad()
                out.mean().backward()
                opt.step()
        """, """
            import torch
            from torch import nn
            lstm = nn.LSTM(4, 8)
            opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
            hidden = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))
            for i in range(3):
                hidden = tuple(s.detach() for s in hidden)
                out, hidden = lstm(torch.randn(3, 2, 4), hidden)
                opt.zero_grad()
                out.mean().backward()
                opt.step()
        """, line=7, column=5),
        Invalid("""
            import torch
            from torch import nn


            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.rnn = nn.GRU(4, 8)

                def forward(self, x, h=None):
                    return self.rnn(x, h)


            model = Model()
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            hidden = None
            for i in range(3):
                out, hidden = model(torch.randn(3, 2, 4), hidden)
                opt.zero_grad()
                out.mean().backward()
                opt.step()
        """, """
            import torch
            from torch import nn


            def _detach_state(state):
                \"\"\"Cut recurrent state from the previous batch's graph (truncated BPTT).\"\"\"
                if isinstance(state, torch.Tensor):
                    return state.detach()
                if isinstance(state, (tuple, list)):
                    return type(state)(_detach_state(s) for s in state)
                return state


            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.rnn = nn.GRU(4, 8)

                def forward(self, x, h=None):
                    return self.rnn(x, h)


            model = Model()
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            hidden = None
            for i in range(3):
                hidden = _detach_state(hidden)
                out, hidden = model(torch.randn(3, 2, 4), hidden)
                opt.zero_grad()
                out.mean().backward()
                opt.step()
        """, note="unknown structure, starts as None: the helper", line=18, column=5),
    ]

    def finish(self) -> None:
        ctx = self.ctx
        a = ctx.analysis
        groups: dict = {}  # anchor -> [(key, link, diagnosis)], one report per anchor
        for d in a.diagnoses_for(self.kind):
            c, link = d.conflict, d.link
            key = link.name
            if key is None or link.stmt is None:
                continue
            # The loop whose iterations the state crosses.
            loop = None
            for (lid, k1), (lid2, k2) in zip(link.iteration, c.second.tag):
                if lid == lid2 and k1 != k2:
                    loop = a.loop_node(d.scope, lid)
                    break
            if loop is None:
                continue
            reader = next((n for n in c.path if link in n.parents), None)
            reader_stmt = reader.stmt if reader is not None else link.stmt
            anchor = body_child(ctx, reader_stmt, loop)
            if anchor is None:
                continue
            entry = groups.setdefault(anchor, (loop, d.scope, []))
            # `h, c = cell(x, (h, c))`: every state the reader takes from the
            # previous iteration, not only the one this walk went through.
            siblings = [p for p in (reader.parents if reader is not None else ())
                        if p.kind == "state" and p.name and p.iteration == link.iteration]
            for node in [link] + siblings:
                if node.name not in [k for k, _, _ in entry[2]]:
                    entry[2].append((node.name, node, d))
        for anchor, (loop, scope, states) in groups.items():
            states.sort(key=lambda t: t[1].seq)
            keys = ", ".join(f"`{k}`" for k, _, _ in states)
            key, link, d = states[0]
            c = d.conflict
            msg = (f"recurrent state {keys} returned at line {line(ctx, link.stmt)} is fed into the next "
                   f"iteration, so `{code(ctx, c.second.call)}` (line {line(ctx, c.second.call)}) walks into "
                   f"the previous batch's graph, already freed by `{code(ctx, c.first.call)}`; "
                   f"detach it at the start of each iteration (truncated BPTT)")
            edits = self._fix_all(a, scope, loop, anchor, states)
            self.report(anchor if edits else link.stmt, msg, edits=edits,
                        fix_title=f"Detach {keys} before it is fed back",
                        related=[(link.stmt, f"{keys} is produced here"),
                                 (c.second.call, "this backward reaches the previous iteration")] + path_note(ctx, c))

    def _fix_all(self, a, scope, loop, anchor, states) -> list:
        lines, extra = [], []
        for key, link, _ in states:
            edits = self._fix(a, scope, loop, anchor, key, link)
            if not edits:
                return []
            lines.extend(edits[0].replacement.nodes[:-1])
            extra.extend(e for e in edits[1:] if not any(x.node is e.node for x in extra))
        return [Edit(anchor, cst.FlattenSentinel([*lines, anchor]))] + extra

    def _fix(self, a, scope, loop, anchor, key, link) -> list:
        ctx = self.ctx
        kind = self._structure(a, link)
        starts_none = _assigned_none_before(ctx, loop, key)
        torch_name = _torch_alias(ctx)
        if kind == "tensor" and not starts_none:
            line_src = f"{key} = {key}.detach()"
        elif kind == "tuple" and not starts_none:
            line_src = f"{key} = tuple(s.detach() for s in {key})"
        else:
            if torch_name is None:
                return []
            line_src = f"{key} = {HELPER}({key})"
        stmt = cst.parse_statement(line_src + "\n")
        edits = [Edit(anchor, cst.FlattenSentinel([stmt, anchor]))]
        if HELPER in line_src and not _defines(ctx.module, HELPER):
            helper = cst.parse_statement(HELPER_SRC.format(name=HELPER, torch=torch_name))
            after = _first_non_import(ctx.module)
            if after is None:
                return []
            blank2 = [cst.EmptyLine(), cst.EmptyLine()]
            helper = helper.with_changes(leading_lines=blank2)
            kept = [ln for ln in after.leading_lines if ln.comment is not None]
            edits.append(Edit(after, cst.FlattenSentinel([helper, after.with_changes(
                leading_lines=blank2 + kept)])))
        return edits

    def _structure(self, a, link) -> str:
        names = a.names
        for p in link.parents:
            call = p.expr
            if isinstance(call, cst.Call):
                from ..imports import dotted

                callee = dotted(call.func)
                kind = names.recurrent.get(callee)
                if kind == "tensor":
                    return "tensor"
                if kind == "tuple":
                    # LSTMCell's (h, c) is unpacked into two tensors; LSTM's stays a tuple.
                    return "tensor" if callee in names.cells else "tuple"
        if link.expr is not None and isinstance(link.expr, cst.Call):
            from ..imports import dotted

            if a.names.recurrent.get(dotted(link.expr.func)) == "tensor":
                return "tensor"
        return "unknown"


def _assigned_none_before(ctx, loop, key) -> bool:
    parent = ctx.parent(loop)
    body = getattr(parent, "body", None)
    if not isinstance(body, (list, tuple)):
        return False
    for stmt in body:
        if stmt is loop:
            break
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    for t in small.targets:
                        if ctx.code(t.target).strip() == key:
                            return isinstance(small.value, cst.Name) and small.value.value == "None"
    return False


def _torch_alias(ctx):
    for local, full in ctx.imports.aliases.items():
        if full == "torch":
            return local
    return None


def _defines(module, name) -> bool:
    return any(isinstance(s, cst.FunctionDef) and s.name.value == name for s in module.body)


def _first_non_import(module):
    for s in module.body:
        if isinstance(s, cst.SimpleStatementLine) and all(
                isinstance(b, (cst.Import, cst.ImportFrom)) for b in s.body):
            continue
        if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and isinstance(s.body[0], cst.Expr) \
                and isinstance(s.body[0].value, cst.SimpleString) and s is module.body[0]:
            continue  # module docstring
        return s
    return None
