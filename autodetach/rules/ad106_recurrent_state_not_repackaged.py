"""AD106: recurrent state carried into the next batch without being cut."""
from __future__ import annotations

import libcst as cst

from ..analysis.decide import Problem
from ..findings import SAFE, UNSAFE
from ..imports import dotted
from ..rule import Edit, Invalid, Valid
from ._ad1_shared import UNSAFE_NOTE, GraphRule, BACKWARD_TOKENS, backward_text, path_note, body_child, code, line
from ._helpers import insert_before, top_level_anchor
from ..analysis.walk import nodes as nodes_of, returns as returns_of

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
    so that the next backward walks into the previous batch's graph. Also
    state a module keeps on itself: a Module whose `forward` feeds
    `self.hidden` back into its LSTM and stores the new state (reported in
    the model's file when the training loop is elsewhere; a method that
    sets the state, such as `init_hidden`, resets it only if something in
    the project other than `__init__` calls it), and a model whose
    layer, from another file of the project, does so (`model(x)` then
    carries that state from one iteration to the next). State on `self` in
    a trainer method that another method's loop calls once per pass
    (`train_stream` -> `self.train_chunk`) is detached at the start of the
    called method. With `retain_graph=True` on the backward, the chained
    state is reported too. The state may pass through a method of another
    file's class (`loss, h = trainer.loss(x, h)`) whose summary shows the
    result hanging from `h` (not when it cuts `h` first, `h = h.detach()`).
    And a module's reset method that zeroes, in place, state its forward
    stores a graph in (`self.v_mem.zero_()`): the zeros keep the old history, and the next forward reads them; the fix
    cuts it after the reset (`.zero_().detach_()`), which changes no
    gradient (the zeroed values pass none back). And a loop that backwards
    and steps every iteration through a module whose state the code cuts only
    outside that loop (`net.detach_hidden()` once per sequence, the frames
    stepped one by one): the next frame's backward walks into this graph,
    whose weights the step changed. Reported without a fix (cut after each
    step, or step once per sequence); that the module keeps a graph in its
    state is read from the cutting method's name.

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
    unrolled inside one iteration before a single backward, are left alone,
    and so are state handed to a model whose forward replaces it before
    reading it (in an arm `if 'Omni' in model.name:` whose class of the
    project, by that name, does `hidden = torch.rand(...) if hidden is not
    None else hidden`), and a retained chain whose loop reads the gradient
    at the chain's start (`h = h0` before the loop, `h0.grad` in it: a
    gradient-flow experiment wants every backward to walk all iterations).
    When the finding rests on inferred roles (a model passed as an argument,
    state on `self` in a trainer method taken to run once per iteration),
    on another file (a layer that keeps state, a model's forward that
    returns it), on callers out of sight (state kept in `forward`), or on
    the author meaning truncation where the backward retains the graph, it
    says so and the fix is unsafe. Where another file's forward returns the
    state cut (`.detach()`), or in a way its summary cannot follow, nothing
    is reported. And state that a step function (or method) of this file
    returns and its caller's loop hands back in, `h = train_step(model, x, h)`
    where `train_step` runs the recurrent call, backwards and steps: the cut
    goes before the call, in the caller's loop (the helper, unless the
    function returns the recurrent call's state as it is).
    """

    code = "AD106"
    kind = Problem.RECURRENT_STATE  # what the analysis calls this problem
    name = "recurrent-state-not-repackaged"
    summary = "recurrent state from the previous batch reaches this batch's backward; detach it"
    fix_safety = SAFE
    # model files: state kept in forward, or reset in place
    tokens = BACKWARD_TOKENS + ("LSTM(", "GRU(", "RNN(", ".zero_()")

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
        """, line=7, column=5, message="is fed into the next iteration"),
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
        Invalid("""
            def train(steps):
                import torch
                from torch import nn
                lstm = nn.LSTM(4, 8)
                opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
                hidden = None
                for i in range(steps):
                    out, hidden = lstm(torch.randn(3, 2, 4), hidden)
                    opt.zero_grad()
                    out.mean().backward()
                    opt.step()
        """, None, note="torch imported only in the function: a helper at module level could not see it",
                line=8, column=9),
        Invalid("""
            import torch.nn.functional as F


            class Trainer:
                def __init__(self, model, opt):
                    self.model, self.opt, self.hidden = model, opt, None

                def chunk(self, x, y):
                    out, self.hidden = self.model(x, self.hidden)
                    loss = F.mse_loss(out, y)
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()

                def fit(self, chunks):
                    for x, y in chunks:
                        self.chunk(x, y)
        """, """
            import torch
            import torch.nn.functional as F


            def _detach_state(state):
                \"\"\"Cut recurrent state from the previous batch's graph (truncated BPTT).\"\"\"
                if isinstance(state, torch.Tensor):
                    return state.detach()
                if isinstance(state, (tuple, list)):
                    return type(state)(_detach_state(s) for s in state)
                return state


            class Trainer:
                def __init__(self, model, opt):
                    self.model, self.opt, self.hidden = model, opt, None

                def chunk(self, x, y):
                    self.hidden = _detach_state(self.hidden)
                    out, self.hidden = self.model(x, self.hidden)
                    loss = F.mse_loss(out, y)
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()

                def fit(self, chunks):
                    for x, y in chunks:
                        self.chunk(x, y)
        """, unsafe=True, note="the file never binds torch: the helper comes with `import torch`"),
        Invalid("""
            import torch
            from torch import nn


            class Trainer:
                def __init__(self):
                    self.rnn, self.head = nn.GRU(4, 8), nn.Linear(8, 1)
                    self.opt = torch.optim.SGD(list(self.rnn.parameters()) + list(self.head.parameters()), lr=0.1)

                def step(self, x, y, h):
                    out, h = self.rnn(x, h)
                    loss = (self.head(out) - y).pow(2).mean()
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()
                    return h

                def fit(self, chunks):
                    h = torch.zeros(1, 2, 8)
                    for x, y in chunks:
                        h = self.step(x, y, h)


            Trainer().fit([(torch.randn(3, 2, 4), torch.randn(3, 2, 1)) for _ in range(3)])
        """, """
            import torch
            from torch import nn


            class Trainer:
                def __init__(self):
                    self.rnn, self.head = nn.GRU(4, 8), nn.Linear(8, 1)
                    self.opt = torch.optim.SGD(list(self.rnn.parameters()) + list(self.head.parameters()), lr=0.1)

                def step(self, x, y, h):
                    out, h = self.rnn(x, h)
                    loss = (self.head(out) - y).pow(2).mean()
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()
                    return h

                def fit(self, chunks):
                    h = torch.zeros(1, 2, 8)
                    for x, y in chunks:
                        h = h.detach()
                        h = self.step(x, y, h)


            Trainer().fit([(torch.randn(3, 2, 4), torch.randn(3, 2, 1)) for _ in range(3)])
        """, note="a step method returns the state its caller hands back in", line=21, column=13),
    ]

    def _resets(self) -> None:
        """`self.h.zero_()` in a reset method, where forward stores a graph in
        `self.h`: the zeros keep the old history (analysis.buffer_updates)."""
        from ..analysis.buffer_updates import OWN, buffer_updates

        ctx = self.ctx
        for u in buffer_updates(ctx.analysis):
            if not u.reset:
                continue
            call = u.values[0]
            msg = (f"`{u.cls.name.value}.{u.method}` resets `{code(ctx, call.func.value)}` in place "
                   f"(line {line(ctx, u.stmt)}), but forward stores a tensor that carries its call's graph in "
                   f"`{u.key}`: `{call.func.attr.value}` keeps the old history, so the next forward that reads the "
                   f"state links into the previous, already freed graph (\"backward through the graph a second "
                   f"time\"). Cut it after the reset: `{code(ctx, call)}.detach_()`")
            fix = SAFE
            if OWN not in u.origins:
                msg += "; inferred: forward's input carries a graph (an earlier layer's output)" + UNSAFE_NOTE
                fix = UNSAFE
            new = cst.Call(func=cst.Attribute(value=call, attr=cst.Name("detach_")))
            self.report(call, msg, edits=[Edit(call, new)], fix=fix, fix_title="Detach the state after the reset")

    def finish(self) -> None:
        ctx = self.ctx
        analysis = ctx.analysis
        self._resets()
        groups: dict = {}  # anchor -> [(key, link, diagnosis)], one report per anchor
        produced: dict = {}  # anchor -> where a function called there returns the state
        unknown: set = set()  # keys whose structure the returning function hides
        for diagnosis in analysis.diagnoses_for(self.kind):
            conflict, link = diagnosis.conflict, diagnosis.link
            key = link.name
            if key is None or link.stmt is None:
                continue
            # The loop whose iterations the state crosses.
            loop = None
            for (lid, k1), (lid2, k2) in zip(link.iteration, conflict.second.tag):
                if lid == lid2 and k1 != k2:
                    loop = analysis.loop_node(diagnosis.scope, lid)
                    break
            if loop is None:
                continue
            if _foreign_state(analysis, link) is False:
                continue  # the model's forward (another file) cuts it, or cannot be told to keep its graph
            reader = next((n for n in conflict.path if link in n.parents), None)
            reader_stmt = reader.stmt if reader is not None else link.stmt
            anchor, note = body_child(ctx, reader_stmt, loop), None
            if anchor is None:
                anchor, note = _method_anchor(ctx, reader_stmt, loop, key)
            if anchor is None:
                fed = _fed_back(ctx, reader_stmt, loop, link)
                if fed is not None:
                    anchor, keys, produced[anchor], plain = fed
                    if not plain:
                        unknown.update(keys)
                    entry = groups.setdefault(anchor, (loop, diagnosis.scope, [], None))
                    entry[2].extend((k, link, diagnosis) for k in keys if k not in [s[0] for s in entry[2]])
                continue
            entry = groups.setdefault(anchor, (loop, diagnosis.scope, [], note))
            # `h, c = cell(x, (h, c))`: every state the reader takes from the
            # previous iteration, not only the one this walk went through.
            siblings = [p for p in (reader.parents if reader is not None else ())
                        if p.kind == "state" and p.name and p.iteration == link.iteration]
            for node in [link] + siblings:
                if node.name not in [k for k, _, _ in entry[2]]:
                    entry[2].append((node.name, node, diagnosis))
        for anchor, (loop, scope, states, note) in groups.items():
            states.sort(key=lambda t: t[1].seq)
            keys = ", ".join(f"`{k}`" for k, _, _ in states)
            key, link, diagnosis = states[0]
            conflict = diagnosis.conflict
            second = conflict.second.call
            msg = (f"recurrent state {keys} {produced.get(anchor) or _produced(ctx, link)} is fed into the next "
                   f"iteration, so {backward_text(ctx, conflict.second)} (line {line(ctx, second)}) walks into "
                   f"the previous batch's graph, already freed by {backward_text(ctx, conflict.first)}; "
                   f"detach it at the start of each iteration (truncated BPTT)")
            edits = self._fix_all(analysis, scope, loop, anchor, states, unknown)
            rep = self.report(anchor if edits else link.stmt, msg, edits=edits,
                              fix_title=f"Detach {keys} before it is fed back",
                              related=[(link.stmt, f"{keys} is produced here"),
                                       (second, "this backward reaches the previous iteration")]
                              + path_note(ctx, conflict))
            _infer(rep, [_foreign_state(analysis, n) for _, n, _ in states] + [note])
        self._retained(analysis, groups)
        self._module_files(analysis)
        self._outer_cuts(analysis, groups)

    def _outer_cuts(self, analysis, done) -> None:
        """A loop that backwards and steps each iteration through a module
        whose state the code cuts only outside that loop (`net.detach_hidden()`
        once per sequence): the next iteration's backward walks this one's
        graph, whose saved weights the step changed (analysis.state_cuts)."""
        from ..analysis.state_cuts import outer_cut

        ctx = self.ctx
        seen = set()
        for scope in analysis.scopes:
            for ev in scope.events:
                if ev.kind != "backward" or ev.call in seen:
                    continue
                cut = outer_cut(analysis, ev)
                if cut is None or any(body_child(ctx, ev.call, cut.loop) is a for a in done):
                    continue
                # the innermost loop the state crosses that steps the optimizer each iteration
                stepped = [x for x in cut.chained if any(o.kind == "step" and any(y is x for y in o.loops)
                                                         for o in scope.events)]
                if not stepped:
                    continue
                seen.add(ev.call)
                loop = f"`for {code(ctx, stepped[-1].target)} in {code(ctx, stepped[-1].iter)}`" \
                    if isinstance(stepped[-1], cst.For) else "the loop"
                msg = (f"`{cut.module}` keeps state between forwards, and `{code(ctx, cut.call)}` (line "
                       f"{line(ctx, cut.call)}) cuts it only outside {loop}, which backwards and steps every "
                       f"iteration: the next iteration's forward reads state hanging from this graph, so its "
                       f"backward walks into this one (freed: \"backward through the graph a second time\"; "
                       f"with `retain_graph=True`, weights the optimizer step has changed in place). Cut the "
                       f"state after each step (`{code(ctx, cut.call)}` inside the loop), or step once after it")
                rep = self.report(ev.call, msg, related=[(cut.call, "the state is cut here, outside the loop")])
                _infer(rep, [f"that `{cut.module}` keeps a graph in its state is read from the name of "
                             f"`{cut.call.func.attr.value}()`"])

    def _retained(self, analysis, done) -> None:
        """State chained across iterations whose backward keeps the graph
        (`retain_graph=True`): no error, but every backward walks all earlier
        iterations again."""
        ctx = self.ctx
        seen = set()
        for scope in analysis.scopes:
            for ev in scope.events:
                if ev.kind != "backward" or ev.retain is not True or not ev.loops:
                    continue
                for node in sorted(ev.reach, key=lambda n: n.seq):
                    if node.kind != "state" or node.name is None or node.stmt is None:
                        continue
                    loop = _chained(node, ev, scope)
                    anchor = body_child(ctx, node.stmt, loop) if loop is not None else None
                    if anchor is None or anchor in done or anchor in seen or _foreign_state(analysis, node) is False:
                        continue
                    if _grad_of_start(ctx, loop, node.name):
                        continue  # backprop through every iteration is the point: the gradient at the chain's start
                    seen.add(anchor)
                    self._report_retained(analysis, scope, loop, anchor, node, ev)

    def _report_retained(self, analysis, scope, loop, anchor, node, ev) -> None:
        ctx = self.ctx
        msg = (f"recurrent state `{node.name}` {_produced(ctx, node)} is fed into the next iteration and "
               f"`{code(ctx, ev.call)}` (line {line(ctx, ev.call)}) keeps every iteration's graph chained "
               f"to the next: each backward walks all earlier iterations again (time and memory grow, and "
               f"the old graphs saved parameters that optimizer steps have since changed); detach it at the "
               f"start of each iteration (truncated BPTT)")
        edits = self._fix_all(analysis, scope, loop, anchor, [(node.name, node, None)])
        rep = self.report(anchor if edits else node.stmt, msg, edits=edits, fix=UNSAFE if edits else None,
                          fix_title=f"Detach `{node.name}` before it is fed back",
                          related=[(node.stmt, f"`{node.name}` is produced here"),
                                   (ev.call, "this backward keeps the graph")])
        _infer(rep, [_foreign_state(analysis, node),
                     "that the loop means truncated BPTT, not backprop through every earlier iteration"])

    def _module_files(self, analysis) -> None:
        """A Module that carries its recurrent state across forward calls, in
        a file without a training loop: the callers are elsewhere."""
        from ..analysis.module_state import forward_states

        if analysis.sites.backward_in or analysis.sites.module_level_backward:
            return  # the walk of this file's loops decides (AD101 reports state on self)
        ctx = self.ctx
        for cls, stmt, key, call, uncalled in forward_states(analysis):
            msg = (f"`{cls.name.value}.forward` feeds `{key}` into `{code(ctx, call.func)}` and stores the new "
                   f"state in it (line {line(ctx, stmt)}): unless every caller resets `{key}` before each "
                   f"batch, the next batch's backward walks into the previous batch's freed graph; detach it "
                   f"before it is fed back (truncated BPTT)")
            owner = ctx.parent(stmt)
            line_stmt = owner if isinstance(owner, cst.SimpleStatementLine) else None
            edits = self._forward_fix(key, line_stmt) if line_stmt is not None else []
            rep = self.report(line_stmt or stmt, msg, edits=edits, fix=UNSAFE if edits else None,
                              fix_title=f"Detach `{key}` before it is fed back")
            notes = [f"the callers of `{cls.name.value}` are not in this file, so that they do not "
                     f"reset `{key}` per batch is assumed"]
            notes += [f"`{name}` sets `{key}` but nothing in the project calls it outside `__init__`, so it is "
                      f"taken to run once, at construction" for name in uncalled]
            _infer(rep, notes)

    def _forward_fix(self, key, anchor) -> list:
        # The helper: the state may be None before the first call, or of any structure.
        extra = self._helper_edit()
        if extra is None:
            return []
        stmt = cst.parse_statement(f"{key} = {HELPER}({key})\n")
        return [Edit(anchor, cst.FlattenSentinel([stmt, anchor]))] + extra

    def _helper_edit(self):
        """The edit adding the helper once per file ([] when it is there), or None."""
        ctx = self.ctx
        if _defines(ctx.module, HELPER):
            return []
        torch_name = ctx.imports.module_alias("torch")
        after = top_level_anchor(ctx.module, after_imports=True)
        # A file that never names torch (`import torch.nn.functional as F` only)
        # gets `import torch` for the helper; one that imports it only inside a
        # function keeps its choice, and gets no fix.
        first = _torch_import_anchor(ctx.module) if torch_name is None and not _names_torch(ctx.module) else None
        if torch_name is None and first is not None:
            torch_name = "torch"
        if torch_name is None or after is None:
            return None
        helper = cst.parse_statement(HELPER_SRC.format(name=HELPER, torch=torch_name))
        blank2 = [cst.EmptyLine(), cst.EmptyLine()]
        helper = helper.with_changes(leading_lines=blank2)
        imp = cst.parse_statement("import torch\n") if first is after else None

        # A function of `after` as the fix's other edits leave it: the loop
        # that gets the detach is often inside it.
        def place(after):
            kept = [ln for ln in after.leading_lines if ln.comment is not None]
            placed = [helper, after.with_changes(leading_lines=blank2 + kept)]
            if imp is not None:
                placed.insert(0, imp.with_changes(leading_lines=after.leading_lines))
            return cst.FlattenSentinel(placed)
        if first is None or first is after:
            return [Edit(after, place)]
        return [Edit(first, insert_before(first, "import torch\n")), Edit(after, place)]

    def _fix_all(self, analysis, scope, loop, anchor, states, unknown=()) -> list:
        lines, extra = [], []
        for key, link, _ in states:
            edits = self._fix(analysis, scope, loop, anchor, key, link, key in unknown)
            if not edits:
                return []
            lines.extend(edits[0].replacement.nodes[:-1])
            extra.extend(e for e in edits[1:] if not any(x.node is e.node for x in extra))
        return [Edit(anchor, cst.FlattenSentinel([*lines, anchor]))] + extra

    def _fix(self, analysis, scope, loop, anchor, key, link, unknown=False) -> list:
        ctx = self.ctx
        kind = "unknown" if unknown else self._structure(analysis, link)
        # a method run once per batch by its caller: `self.hidden` may start as None in `__init__`
        starts_none = _assigned_none_before(ctx, loop, key) or (key.startswith("self.") and scope.caller_loop)
        if kind == "tensor" and not starts_none:
            line_src = f"{key} = {key}.detach()"
        elif kind == "tuple" and not starts_none:
            line_src = f"{key} = tuple(s.detach() for s in {key})"
        else:
            line_src = f"{key} = {HELPER}({key})"
        if _cut_before(ctx, anchor, line_src):
            return []  # cut there already: the chain runs through another value, and a second cut would not settle
        stmt = cst.parse_statement(line_src + "\n")
        edits = [Edit(anchor, cst.FlattenSentinel([stmt, anchor]))]
        if HELPER in line_src:
            extra = self._helper_edit()
            if extra is None:
                return []
            edits += extra
        return edits

    def _structure(self, analysis, link) -> str:
        names = analysis.names
        for parent in link.parents:
            call = parent.expr
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

            if analysis.names.recurrent.get(dotted(link.expr.func)) == "tensor":
                return "tensor"
        return "unknown"


def _foreign_state(analysis, node):
    """What another file says about state `node`: a note (str) when the
    finding rests on it, False when that file does not show the state
    keeping its graph, None when no other file is involved."""
    from ..analysis.module_state import describe

    if node.module_state:
        return describe(node)
    call = node.expr
    callee = dotted(call.func) if isinstance(call, cst.Call) else None
    owner, meth = callee, "forward"
    if callee is not None and callee not in analysis.names.foreign_instances:
        owner, _, meth = callee.rpartition(".")  # `trainer.loss(x, h)`: a method of another file's class
    if not owner or owner not in analysis.names.foreign_instances:
        from ..analysis.replaced_state import replaced_in_forward

        if callee is not None and node.name and replaced_in_forward(analysis, call, node.name):
            return False  # the arm's class (by its name) replaces the state before reading it
        return None
    found = analysis.foreign_method(owner, meth)
    if found is None:
        return None
    summary, path = found
    kind = summary.result
    pos = _target_index(node)
    if pos is not None and pos < len(summary.elems):
        kind = summary.elems[pos]
    if kind != "graph":
        return False
    import os

    where = f"`{callee}`'s forward" if meth == "forward" else f"`{callee}`"
    return f"{where} (read from {os.path.basename(path)}) returns `{node.name}` computed from its input"


def _grad_of_start(ctx, loop, name: str) -> bool:
    """The loop reads `h_0.grad` where the chained state started, before the
    loop, as `h_0` (`h_t = h_0`, `h_t, c_t = h_0, c_0`): it measures the
    gradient that reaches the chain's start through every iteration (a
    gradient-flow experiment), which needs each backward to walk all earlier
    iterations; the retain is what it asks for."""
    body = list(nodes_of(loop.body))
    grads = {n.value.value for n in body if isinstance(n, cst.Attribute) and n.attr.value == "grad" and
             isinstance(n.value, cst.Name)}
    if not grads:
        return False
    for t in body:
        if isinstance(t, cst.AssignTarget):  # a name rebound in the loop (not `h_0.grad = None`)
            parts = [t.target] + [e.value for e in getattr(t.target, "elements", ())]
            grads -= {x.value for x in parts if isinstance(x, cst.Name)}
    start = line(ctx, loop)
    parent = ctx.parent(loop)
    while parent is not None and not isinstance(parent, (cst.IndentedBlock, cst.Module)):
        parent = ctx.parent(parent)
    for stmt in getattr(parent, "body", ()):
        for node in nodes_of(stmt, skip=(cst.FunctionDef, cst.ClassDef)):
            if not isinstance(node, cst.Assign) or line(ctx, node) >= start:
                continue
            targets = [x.value for t in node.targets for x in nodes_of(t.target) if isinstance(x, cst.Name)]
            read = {x.value for x in nodes_of(node.value) if isinstance(x, cst.Name)}
            if name in targets and read & grads:
                return True
    return False


def _target_index(node):
    """Position of `node.name` in the tuple its statement unpacks into."""
    stmt = node.stmt
    for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
        if isinstance(small, cst.Assign) and small.value is node.expr:
            for target in small.targets:
                elems = getattr(target.target, "elements", None)
                if elems is not None:
                    for i, elem in enumerate(elems):
                        if dotted(elem.value) == node.name:
                            return i
    return None


def _cut_before(ctx, anchor, line_src: str) -> bool:
    """Does the block holding `anchor` already hold the cut `line_src` before it?"""
    block = ctx.parent(anchor)
    body = getattr(block, "body", None)
    if not isinstance(body, (list, tuple)) or anchor not in body:
        return False
    return any(ctx.code(stmt).strip() == line_src for stmt in body[:body.index(anchor)])


def _chained(node, ev, scope):
    """The loop in whose earlier iteration state `node` was stored, when the
    backward `ev` of a later iteration reaches it."""
    for (lid, k1), (lid2, k2) in zip(node.iteration, ev.tag):
        if lid == lid2 and k1 != k2:
            return scope.loops.get(lid)
    return None


def _fed_back(ctx, stmt, loop, link):
    """`h = train_step(model, x, h)` in `loop`, where `stmt` (the recurrent
    call that reads the carried state) is in `train_step`, a function or a
    method of this file that the walk inlined at its one call in the loop:
    (the loop's statement holding the call, the caller's names it assigns and
    hands back in through a parameter `stmt` reads, where the state comes
    from, whether the function returns the recurrent call's state as it is),
    or None."""
    fn = ctx.enclosing(stmt, cst.FunctionDef)
    if fn is None or ctx.enclosing(loop, cst.FunctionDef) is fn:
        return None
    names = {fn.name.value}
    params = [p.name.value for p in fn.params.params]
    method = bool(params) and params[0] == "self" and ctx.enclosing(fn, cst.ClassDef, stop=cst.FunctionDef)
    if method:
        names, params = {f"self.{fn.name.value}"}, params[1:]
    calls = [n for n in nodes_of(loop.body) if isinstance(n, cst.Call) and dotted(n.func) in names]
    if len(calls) != 1 or ctx.enclosing(calls[0], (cst.For, cst.While), stop=(cst.FunctionDef, cst.Lambda)) \
            is not loop:
        return None
    call = calls[0]
    assign = ctx.parent(call)
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    elements = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
    assigned = {e.value for e in elements if isinstance(e, cst.Name)}
    bound = {}  # caller name -> the parameter it is handed in as
    for index, arg in enumerate(call.args):
        if arg.star or not isinstance(arg.value, cst.Name):
            continue
        param = arg.keyword.value if arg.keyword is not None else (params[index] if index < len(params) else None)
        if param is not None:
            bound[arg.value.value] = param
    read = {n.value for n in nodes_of(stmt) if isinstance(n, cst.Name)}
    keys = [name for name in bound if name in assigned and bound[name] in read]
    anchor = body_child(ctx, assign, loop)
    if not keys or anchor is None:
        return None
    # `return h` alone: the caller's `h` has the structure the recurrent call gives it
    returns = returns_of(fn)
    plain = isinstance(target, cst.Name) and bool(returns) and \
        all(isinstance(r, cst.Name) and r.value == link.name for r in returns)
    produced = (f"returned by `{code(ctx, call.func)}()` (line {line(ctx, call)}; its recurrent call is at "
                f"line {line(ctx, stmt)})")
    return anchor, keys, produced, plain


def _produced(ctx, node) -> str:
    held = node.module_state
    if held:
        return f"kept on `{held[0]}` by its call at line {line(ctx, node.stmt)}"
    return f"returned at line {line(ctx, node.stmt)}"


def _method_anchor(ctx, stmt, loop, key) -> tuple:
    """`for ...: self.train_chunk(x, y)` where `train_chunk` reads `self.hidden`:
    the statement of that method to detach before, when the loop calls it once
    per pass (not in an inner loop) and the read is in no loop of its own.
    Returns (anchor, what was inferred) or (None, None)."""
    fn = ctx.enclosing(stmt, cst.FunctionDef, stop=(cst.For, cst.While))
    if fn is None or not key.startswith("self.") or not fn.params.params or \
            fn.params.params[0].name.value != "self":
        return None, None
    calls = [n for n in nodes_of(loop.body) if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
             and dotted(n.func) == f"self.{fn.name.value}"]
    if len(calls) != 1 or ctx.enclosing(calls[0], (cst.For, cst.While), stop=cst.FunctionDef) is not loop:
        return None, None
    cls = ctx.enclosing(fn, cst.ClassDef, stop=cst.FunctionDef)
    if cls is None or ctx.enclosing(ctx.enclosing(loop, cst.FunctionDef), cst.ClassDef) is not cls:
        return None, None
    anchor = body_child(ctx, stmt, fn)
    if anchor is None:
        return None, None
    return anchor, (f"`self.{fn.name.value}()` (line {line(ctx, calls[0])}) is taken to start a new batch each "
                    f"time the loop at line {line(ctx, loop)} calls it")


def _infer(rep, notes) -> None:
    """A finding that rests on another file, or on callers out of sight: say
    so, and offer the fix as unsafe."""
    notes = [n for n in notes if isinstance(n, str)]
    if rep is None or not notes:
        return
    rep.message += ("; " if "; inferred: " in rep.message else "; inferred: ") + "; ".join(dict.fromkeys(notes))
    if rep.edits:
        rep.fix = UNSAFE
        if "fix is unsafe" not in rep.message:
            rep.message += UNSAFE_NOTE


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
                    for target in small.targets:
                        if ctx.code(target.target).strip() == key:
                            return isinstance(small.value, cst.Name) and small.value.value == "None"
    return False


def _defines(module, name) -> bool:
    return any(isinstance(s, cst.FunctionDef) and s.name.value == name for s in module.body)


def _names_torch(module) -> bool:
    """Does the file bind or read the name `torch` anywhere (an import in a
    function, a variable)? `import torch.nn.functional as F` does not."""
    skip = set()
    for n in nodes_of(module):
        if type(n) is cst.Import or type(n) is cst.ImportFrom:
            for alias in n.names if not isinstance(n.names, cst.ImportStar) else ():
                bound = alias.asname.name if alias.asname else alias.name
                if (dotted(bound) or "").split(".")[0] == "torch":
                    return True
            skip.update(id(x) for x in nodes_of(n))
        elif type(n) is cst.Name and n.value == "torch" and id(n) not in skip:
            return True
    return False


def _torch_import_anchor(module):
    """Where `import torch` goes: before the file's first import from torch
    (`import torch.nn.functional as F`), else where a new import goes."""
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and stmt.body:
            small = stmt.body[0]
            names = [dotted(a.name) for a in small.names] if isinstance(small, cst.Import) else \
                [dotted(small.module)] if isinstance(small, cst.ImportFrom) and small.module is not None else []
            if any((n or "").split(".")[0] == "torch" for n in names):
                return stmt
    return top_level_anchor(module)
