"""The engine: parse once, run all selected rules in one walk, apply fixes
until nothing changes. Every failure is returned as a value."""
from __future__ import annotations

import ast
import bisect
import contextlib
import dataclasses
import gc
import re
import threading
import traceback
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

import libcst as cst

from . import spans, suppress, tabmask
from .code_tokens import code_rules
from .context import FileContext
from .findings import NONE, SAFE, UNSAFE, FileResult, Finding
from .positions import code_for
from .rule import Report, Rule
from .textio import decode, encode

MAX_PASSES = 10


class FixesDidNotSettle(Exception):
    pass


@dataclass
class Options:
    fix: bool = False
    unsafe: bool = False
    # per-file ignores resolved by the caller: codes to drop for this file
    ignore: frozenset = frozenset()


_PLANS: dict = {}


def _plan(rules: Sequence[type]) -> tuple:
    """For a rule selection: each distinct token once, with the rules it
    admits (many rules share tokens; each is searched for once per file)."""
    key = tuple(rules)
    plan = _PLANS.get(key)
    if plan is None:
        owners: dict = {}
        for rule in key:
            for tok in rule.tokens:
                owners.setdefault(tok, set()).add(rule)
        plan = (key, tuple((tok, frozenset(rs)) for tok, rs in owners.items()))
        if len(_PLANS) > 64:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


# The last answer: process_bytes asks for a file's text, then check_source
# for the same text (the scan is about 1% of the engine on admitted files).
_LAST: list = [None]


def prefilter(text: str, rules: Sequence[type]) -> list:
    """The rules that can possibly match this text: one of a rule's tokens,
    and one token of each of its `also_tokens` groups, is in its code (the
    text without docstrings and comments: code_tokens)."""
    key, tokens = _plan(rules)
    last = _LAST[0]
    if last is not None and last[0] is text and last[1] is key:
        return list(last[2])
    out = code_rules(text, lambda t: _admitted(t, key, tokens), _among)
    _LAST[0] = (text, key, out)
    return list(out)


def text_prefilter(text: str, rules: Sequence[type]) -> list:
    """The rules whose tokens are anywhere in the text, comments included
    (the benchmarks' floor is measured on these files)."""
    key, tokens = _plan(rules)
    return _admitted(text, key, tokens)


def _admitted(text: str, key, tokens) -> list:
    hit: set = set()
    for tok, owners in tokens:
        if not owners <= hit and tok in text:
            hit |= owners
    return [r for r in key if not r.tokens or (r in hit and _also(r, text))]


def _among(text: str, rules: list) -> list:
    return [r for r in rules if not r.tokens or (any(t in text for t in r.tokens) and _also(r, text))]


def _also(rule: type, text: str) -> bool:
    for group in rule.also_tokens:
        if not any(tok in text for tok in group):
            return False
    return True


def _fixable(rep: Report, opts: Options) -> bool:
    if not opts.fix or rep.fix == NONE:
        return False
    return rep.fix == SAFE or (rep.fix == UNSAFE and opts.unsafe)


def _finding(path, rule: type, rep: Report, ctx: Optional[FileContext], starts: list) -> Finding:
    if rep.position is not None:
        line, col, eline, ecol = rep.position
    else:
        line, col, eline, ecol = ctx.position(rep.node)
    related = []
    for node, note in rep.related:
        if isinstance(node, tuple):
            related.append((node[0], node[1], note))
        elif ctx is not None:
            l, c, _, _ = ctx.position(node)
            related.append((l, c, note))
    if ctx is not None:
        # Every other place the fix rewrites is shown too (a call site of a
        # fixed class, the accumulator behind `total[0]`).
        seen = {r[0] for r in related}
        for e in rep.edits:
            if type(e.node) is cst.Module:
                continue
            l, c, _, _ = ctx.position(e.node)
            if not line <= l <= eline and l not in seen:
                seen.add(l)
                related.append((l, c, "the fix changes this too"))
    # The anchor in this pass's text; _settle turns it into an identity
    # that survives the passes.
    anchor = (rule.code, spans.offset(starts, line, col), spans.offset(starts, eline, ecol))
    return Finding(
        path=path, line=line, column=col, end_line=eline, end_column=ecol,
        code=rule.code, name=rule.name, message=rep.message, fix=rep.fix,
        fix_title=rep.fix_title, related=related, identity=anchor,
    )


class _Apply(cst.CSTTransformer):
    """Replaces the edited nodes. Only the nodes that hold an edit are
    visited (and so rebuilt): the rest of the tree is kept as it is."""

    def __init__(self, edits: dict, positions) -> None:
        super().__init__()
        self.edits = edits
        self.extent = positions.extent
        spans_ = sorted(self.extent(n) for n in edits)
        self.starts = [a for a, _ in spans_]
        self.ends = [b for _, b in spans_]

    def on_visit(self, node):
        # An edited node is replaced whole; nothing inside it is visited,
        # unless its replacement is built from it (edits inside are kept).
        if node in self.edits and not callable(self.edits[node]):
            return False
        try:
            start, end = self.extent(node)
        except KeyError:  # not generated (cannot happen in a parsed tree): look inside
            return True
        i = bisect.bisect_left(self.starts, start)
        while i < len(self.starts) and self.starts[i] <= end:
            if self.ends[i] <= end:
                return True
            i += 1
        return False

    def on_leave(self, original, updated):
        if original in self.edits:
            new = self.edits[original]
            return new(updated) if callable(new) else new
        return updated


def _choose(reports: list, ctx: FileContext) -> list:
    """Reports whose edits do not overlap each other; the rest wait a pass.
    Taken spans stay sorted and disjoint: each check is a bisect."""
    starts: list = []  # sorted starts of the taken spans
    ends: list = []  # their ends, same order
    chosen = []
    for rep in reports:
        spans_ = []
        for e in rep.edits:
            r = ctx.positions[e.node]
            spans_.append(((r.start.line, r.start.column), (r.end.line, r.end.column)))
        clash = False
        for a, b in spans_:
            i = bisect.bisect_left(starts, b)  # taken spans starting before b ends
            if i and ends[i - 1] > a:
                clash = True  # the nearest one before reaches past a
                break
        if clash:
            continue
        for a, b in sorted(spans_):
            i = bisect.bisect_left(starts, a)
            if i and ends[i - 1] > a:  # edits of one report overlap: merge
                i -= 1
                a = starts[i]
                b = max(b, ends[i])
                del starts[i], ends[i]
            while i < len(starts) and starts[i] < b:
                b = max(b, ends[i])
                del starts[i], ends[i]
            starts.insert(i, a)
            ends.insert(i, b)
        chosen.append(rep)
    return chosen


def _apply_text(text: str, reports: list) -> str:
    edits = sorted((e for r in reports for e in r.text_edits), key=lambda e: e.start)
    out, pos = [], 0
    for e in edits:
        if e.start < pos:
            continue
        out.append(text[pos:e.start])
        out.append(e.text)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)


def _mask(text: str, text_rules: Sequence[type]) -> str:
    for rule in text_rules:
        masked = getattr(rule, "mask_text", None)
        if masked:
            text = masked(text)
    return text


def _all_text_rules() -> list:
    from .registry import all_rules

    return [r for r in all_rules() if r.has_text_pass()]


def _parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except cst.ParserSyntaxError:
        return False
    return True


_VISIT_NAMES: dict = {}


def visit_rules(module: cst.Module, visitors: list) -> None:
    """All rules in one read-only walk: libcst's batched visitor rebuilds
    every node on the way up, which costs twice the parse. (analysis.walk's
    pre-order, inlined: a node is queued for leaving only when some rule
    leaves its type.)"""
    from .analysis.walk import children

    table = []
    for v in visitors:
        names = _VISIT_NAMES.get(type(v))
        if names is None:  # inspect.getmembers is slow: once per rule class
            names = _VISIT_NAMES[type(v)] = tuple(v.get_visitors())
        table.append({n: getattr(v, n) for n in names})
    cache: dict = {}
    stack: list = [module]  # nodes to enter, and (node,) to leave
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        n = pop()
        if type(n) is tuple:
            n = n[0]
            for fn in cache[type(n)][1]:
                fn(n)
            continue
        t = type(n)
        f = cache.get(t)
        if f is None:
            name = t.__name__
            f = cache[t] = ([d[k] for d in table for k in ("visit_" + name,) if k in d],
                            [d[k] for d in table for k in ("leave_" + name,) if k in d])
        for fn in f[0]:
            fn(n)
        if f[1]:
            push((n,))
        kids = children(n)
        if kids:
            extend(reversed(kids))


_GC_LOCK = threading.Lock()
_GC_STATE = [0, False]  # passes running in this process, whether the collector was on before


@contextlib.contextmanager
def _gc_paused():
    """No cyclic garbage collection during a pass. A pass makes tens of
    thousands of tree nodes and analysis objects that live until it ends,
    and the collector scanned them about 15 times a pass: a sixth of a
    legacy file's run, a quarter on a 2,000-line one. The first collection
    after the pass frees its cycles. Per pass, not per file: pausing a whole
    fix run kept every pass's cycles (peak RSS 107 -> 170 MB on a
    1,936-line legacy file; 114 MB paused per pass)."""
    with _GC_LOCK:
        if _GC_STATE[0] == 0:
            _GC_STATE[1] = gc.isenabled()
            gc.disable()
        _GC_STATE[0] += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_STATE[0] -= 1
            if _GC_STATE[0] == 0 and _GC_STATE[1]:
                gc.enable()


class _Pass(tuple):
    """A pass's (findings, fixed text or None, n_fixed); `ad1_quiet`: no AD1
    rule reported on it (run or deferred; see _run_rules' `defer`)."""

    ad1_quiet = False


def run_rules(text: str, path: str, rules: Sequence[type], opts: Options, verify: bool = False, report: bool = False,
              defer: bool = False):
    """One pass (see _run_rules)."""
    held: list = []
    state: dict = {}
    with _gc_paused():
        try:
            out = _Pass(_run_rules(text, path, rules, opts, verify, held, report, defer, state))
            out.ad1_quiet = state.get("ad1_quiet", False)
            return out
        finally:
            if getattr(_CARRY, "value", None) is None:
                from .analysis.walk import forget

                # The analysis's cached children and node lists hold this
                # pass's tree. A pass that hands its tree on keeps them: the
                # next pass reuses the untouched statements' nodes, and so
                # their entries. Dropped before the collector is back on, so
                # that it does not scan the tree they would keep alive.
                forget()
            for ctx in held:  # dead now: a pass hands on its tree and parts, never its context
                ctx.release()


def _run_rules(text: str, path: str, rules: Sequence[type], opts: Options, verify: bool = False, held=None,
               report: bool = False, defer: bool = False, state=None):
    """One pass. Returns (findings, fixed_text_or_None, n_fixed). With
    `verify`, `text` is our own output: it must parse (the pass's own parse
    checks it when it can, instead of a second parse). `report`: the pass
    is one of a plain report's fixing passes, which keep only the findings
    they fix (see _quiet_ad1). `defer` (the AD1 rules reported nothing on
    the passes since they last ran): the AD1 rules run only when the other
    rules' fixes leave this text as it is, so once per run of fixes of the
    other rules, on its fixed point (docs/scale.md, "The AD1 rules on the
    fixed point of the others"). `state["ad1_quiet"]`: no AD1 rule
    reported here."""
    findings: list[Finding] = []
    lines = suppress.Lines(text)
    starts = spans.line_starts(text)
    # Text pass first: its fixes may be what makes the file parseable.
    text_rules = [r for r in rules if r.has_text_pass()]
    applied_text = []
    for rule in text_rules:
        for rep in rule(None).check_text(text):
            f = _finding(path, rule, rep, None, starts)
            if suppress.is_suppressed(lines, f):
                continue
            if _fixable(rep, opts):
                applied_text.append(rep)
                f.fixed = True
            findings.append(f)
    if applied_text:
        new_text = _apply_text(text, applied_text)
        if _parses(_mask(new_text, text_rules)):
            if verify:
                _verify_parses(text, path)
            return findings, new_text, len(applied_text)
        # The fix does not make the file parseable (say, Python 2 code): leave
        # the text alone; the parse below reports the real problem.
        for f in findings:
            f.fixed = False
    # Let the tree rules see code libcst can parse (same length, positions
    # hold) without fixing it. Every text rule's mask applies, selected or
    # not: which rules run must not decide whether a file parses.
    parse_text = _mask(text, _all_text_rules())
    if verify and parse_text != text:
        _verify_parses(text, path)
    carry = _take_carry(path, text) if parse_text == text else None
    module = _reparse(carry) if carry is not None else None
    if module is None:
        try:
            module = cst.parse_module(parse_text)
        except cst.ParserSyntaxError as exc:
            if verify and parse_text == text:
                raise RuntimeError(f"a fix produced code that does not parse: {exc}") from exc
            tabbed = None if verify else tabmask.parse(parse_text)
            if tabbed is None:
                exc.autodetach_text = parse_text  # what failed to parse, for the error's location
                raise
            # Tabs libcst rejects: the rules read it masked, and no tree fix is written.
            parse_text, module = tabbed
    ctx = FileContext(module, path, parse_text, parts=carry.parts if carry is not None else {})
    if held is not None:
        held.append(ctx)
    skip = _ad1_skip(rules, carry, ctx) if carry is not None else frozenset()
    if skip and not CHECK_SKIP:
        rules = [r for r in rules if r not in skip]
    if ctx.imports.other_autodiff():
        # an MXNet or JAX file: what it backwards is not a torch graph
        rules = [r for r in rules if not r.code.startswith("AD1")]
    every = [r(ctx) for r in rules]
    visit_rules(module, every)  # the deferred rules' visits are cheap: their work is in finish()
    later = [v for v in every if type(v).code.startswith("AD1")] if defer else []
    visitors = [v for v in every if v not in later] if later else every  # those finished
    found: dict = {}  # rule -> [(report, finding)], unsuppressed

    def finish(vs):
        for v in vs:
            v.finish()
            if type(v) in skip and (carry.quiet[2] is None and v.reports or
                                    any(_fixable(r, opts) and r.edits for r in v.reports)):  # CHECK_SKIP
                raise AssertionError(f"{type(v).code} reports after a pass that removed only unused imports")
            out = found[type(v)] = []
            for rep in v.reports:
                f = _finding(path, type(v), rep, ctx, starts)
                if not suppress.is_suppressed(lines, f):
                    out.append((rep, f))

    text_found = findings

    def listed():
        fs = list(text_found)  # the text rules' findings first
        fixes = []
        for r in rules:  # rule order, whichever finished first
            for rep, f in found.get(r, ()):
                fs.append(f)
                if _fixable(rep, opts) and rep.edits:
                    fixes.append((rep, f))
        return fs, fixes

    def run_later():
        # The deferred AD1 rules finish, on this pass's tree and context;
        # findings and fixes keep the order of a pass that ran them all.
        finish(later)
        visitors.extend(later)
        return listed()

    finish(visitors)
    findings, fixable = listed()
    if later and (not fixable or parse_text != text):
        # No fix of the others: this text is their fixed point.
        findings, fixable = run_later()
        later = []
    elif later and CHECK_DEFER:
        for v in later:
            v.finish()
            if v.reports:
                DEFER_MISSES.append((path, type(v).code))
    if state is not None:
        # (A report pass that skipped AD1 rules with findings left: not quiet.)
        state["ad1_quiet"] = not any(v.reports for v in visitors if type(v).code.startswith("AD1")) and \
            not (skip and carry.quiet[2] is not None)
    if not fixable or parse_text != text:
        # Never write out tree fixes made on masked text.
        return findings, None, 0
    chosen = _choose([r for r, _ in fixable], ctx)
    chosen_ids = {id(r) for r in chosen}
    edits = {}
    for rep, f in fixable:
        if id(rep) in chosen_ids:
            f.fixed = True
            for e in rep.edits:
                edits[e.node] = _with_comments(e.node, e.replacement, ctx)
    # _choose computed the positions: their code generation is `module.code`.
    pieces: list = []
    printed = _print(module.visit(_Apply(edits, ctx.positions)), module, ctx.positions, pieces)
    new_code = _restore_dropped(text, ctx.positions.code, printed)
    if new_code is None:
        if later:  # the text stays: the deferred rules' turn
            findings, _ = run_later()
            if state is not None:
                state["ad1_quiet"] = not any(v.reports for v in visitors if type(v).code.startswith("AD1"))
        for f in findings:
            f.fixed = False
        return findings, None, 0
    if pieces and new_code == printed:
        from .analysis.walk import keep_parents

        kept = {id(n) for n, _ in pieces if n is not None}
        ctx.positions.keep(kept)
        if "parents" in ctx.parts:
            keep_parents(ctx.parts["parents"], kept)
        _CARRY.value = _Carry(path, new_code, module, pieces, ctx.parts,
                              _quiet_ad1(visitors, chosen, module, ctx, new_code, opts if report else None))
    return findings, new_code, len(chosen)


AD1_SKIPS = [0]  # passes that skipped the AD1 rules (tests)


def _quiet_ad1(visitors, chosen, module, ctx, new_code, report_opts=None):
    """When this pass's fixes only deleted whole top-level `from m import
    name` lines (unused imports: AD202's `Variable`) whose names the new
    text no longer holds, and the AD1 rules reported nothing here: (the AD1
    rules that ran, whether the imports mention torch, None). The next pass
    need not run them: on that text they report nothing either (docs/scale.md,
    "Skipping the AD1 rules after an import removal"). Else None.
    With `report_opts` (a plain report's fixing passes, whose unfixed
    findings are dropped: check_source keeps the first pass's report and
    the findings a later pass fixes) it is enough that none of their reports
    has a fix these options apply: on the next text they report the same,
    moved, and fix nothing either; the third item is then True."""
    ad1 = [v for v in visitors if type(v).code.startswith("AD1")]
    if not ad1:
        return None
    reported = any(v.reports for v in ad1)
    if reported and (report_opts is None or
                     any(_fixable(r, report_opts) and r.edits for v in ad1 for r in v.reports)):
        return None
    top = {id(s) for s in module.body}
    for rep in chosen:
        if not rep.removes_import or len(rep.edits) != 1 or \
                re.search(r"\b" + re.escape(rep.removes_import) + r"\b", new_code):
            return None
        stmt, new = rep.edits[0].node, rep.edits[0].replacement
        if id(stmt) not in top or type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1 or \
                new is not cst.RemoveFromParent() or type(stmt.body[0]) is not cst.ImportFrom:
            return None
        imp = stmt.body[0]
        if imp.relative or type(imp.names) is cst.ImportStar or stmt.trailing_whitespace.comment is not None or \
                any(line.comment is not None for line in stmt.leading_lines):
            return None
    return frozenset(type(v) for v in ad1), ctx.imports.mentions_torch(), (True if reported else None)


def _ad1_skip(rules, carry, ctx) -> frozenset:
    """The AD1 rules this pass may skip (see _quiet_ad1): all of them,
    when each ran on the last pass and the imports still mention torch as
    they did (AD110 and the eval-loop analysis ask)."""
    if carry.quiet is None:
        return frozenset()
    ran, torch_named, _ = carry.quiet
    ad1 = frozenset(r for r in rules if r.code.startswith("AD1"))
    if not ad1 or not ad1 <= ran or ctx.imports.mentions_torch() != torch_named:
        return frozenset()
    AD1_SKIPS[0] += 1
    return ad1


def _print(new: cst.Module, old: cst.Module, positions, pieces=None) -> str:
    """`new.code`, where the top-level statements the fixes left alone (the
    same nodes as in `old`) are copied from `old`'s code, not generated
    again: at the top level a statement's code does not depend on where it
    stands. `pieces` gets, per statement of `new`, (the node when it was
    left alone else None, its code)."""
    if not (isinstance(new, cst.Module) and new.has_trailing_newline and old.has_trailing_newline
            and new.default_indent == old.default_indent and new.default_newline == old.default_newline
            and old.body and len(new.header) == len(old.header) and len(new.footer) == len(old.footer)
            and all(a is b for a, b in zip(new.header, old.header))
            and all(a is b for a, b in zip(new.footer, old.footer))):
        return new.code
    code = positions.code
    top = {id(s) for s in old.body}
    out = [code[:positions.extent(old.body[0])[0]]]  # the header
    for stmt in new.body:
        if id(stmt) in top:
            start, end = positions.extent(stmt)
            out.append(code[start:end])
        else:
            out.append(code_for(new, stmt))
        if pieces is not None:
            pieces.append((stmt if id(stmt) in top else None, out[-1]))
    out.append(code[positions.extent(old.body[-1])[1]:])  # the footer
    return "".join(out)


class _Carry:
    """What one fix pass hands the next: the text it wrote, as the old
    tree's header and footer and, per top-level statement, the node the
    fixes left alone or the code they wrote; and the per-statement facts
    (positions, parents) worked out so far."""

    def __init__(self, path, text, old, pieces, parts, quiet=None) -> None:
        self.path, self.text, self.old, self.pieces, self.parts = path, text, old, pieces, parts
        self.quiet = quiet  # see _quiet_ad1


_CARRY = threading.local()  # .value: the last pass's _Carry (one file at a time per thread)
CHECK_REUSE = False  # tests: compare every reused tree with a full parse
CHECK_SKIP = False  # tests: run the AD1 rules a pass would skip, and fail if they report
DEFER_AD1 = True  # see _run_rules' `defer`
CHECK_DEFER = False  # tests: run the AD1 rules a pass defers too, and record in DEFER_MISSES where they report
DEFER_MISSES: list = []  # (path, code)


def _take_carry(path, text):
    carry = getattr(_CARRY, "value", None)
    if carry is None or carry.path != path or carry.text != text:
        return None
    _CARRY.value = None
    return carry


def _reparse(carry: _Carry) -> Optional[cst.Module]:
    """The tree of `carry.text`, parsing only the statements the last
    pass's fixes rewrote; None where that cannot be sure to give what a
    parse of the whole text gives (the caller then parses it all)."""
    old = carry.old
    header = tuple(old.header)
    body = []
    indent = None  # the first indented block decides the file's default indent
    # Comment lines indented under a statement belong to the block before them
    # when there is one: where the statement before is new, parse it all.
    before = {id(b): a for a, b in zip(old.body, old.body[1:])}
    for k, (node, code) in enumerate(carry.pieces):
        if node is not None and (before.get(id(node)) is not (body[-1] if body else None) or
                                 (k == 0 and node is not old.body[0])):
            if (k == 0 and node.leading_lines) or _indented(node.leading_lines):
                return None  # leading lines that become the header, or another block's
        if node is None:
            try:
                m = cst.parse_module(code)
            except cst.ParserSyntaxError:
                return None  # the whole parse says where
            if len(m.body) != 1 or m.footer or not m.has_trailing_newline or m.encoding != old.encoding or \
                    m.default_newline != old.default_newline:
                return None
            node = m.body[0]
            if m.header:  # leading lines: the module's header before the first statement
                if k == 0:
                    header = header + tuple(m.header)
                elif _indented(m.header):
                    return None
                else:
                    node = node.with_changes(leading_lines=m.header)
            block = _first_block(node)
            if block is not None:
                if m.default_indent != old.default_indent:
                    return None
                indent = indent or "ok"
        elif indent is None:
            block = _first_block(node)
            if block is not None:
                if block.indent is not None:
                    return None
                indent = "ok"
        body.append(node)
    if indent is None and old.default_indent != cst.Module([]).default_indent:
        return None
    if body[-1] is not old.body[-1] and _indented(old.footer):
        return None
    module = cst.Module(body=body, header=header, footer=old.footer, encoding=old.encoding,
                        default_indent=old.default_indent, default_newline=old.default_newline,
                        has_trailing_newline=True)
    if CHECK_REUSE and not module.deep_equals(cst.parse_module(carry.text)):
        raise AssertionError("a reused tree differs from the parse of its text")
    return module


def _indented(lines) -> bool:
    return any(line.whitespace.value for line in lines)


def _first_block(stmt):
    """The first indented block in `stmt`, in text order, else None."""
    body = getattr(stmt, "body", None)
    if type(body) is cst.IndentedBlock:
        return body
    if isinstance(stmt, cst.SimpleStatementLine):
        return None
    from .analysis.walk import nodes

    return next((n for n in nodes(stmt) if isinstance(n, cst.IndentedBlock)), None)


def _with_comments(node, replacement, ctx):
    """An expression replaced whole keeps the comments it held (`type(  # why`
    -> `isinstance(...)`): they go in parentheses around the replacement."""
    if isinstance(node, cst.BaseExpression) and isinstance(replacement, cst.BaseExpression):
        from .rules._helpers import keep_comments, lost_comments

        lost = lost_comments(node, replacement, ctx)
        if lost:
            return keep_comments(replacement, lost)
    return replacement


def _restore_dropped(text: str, printed: str, new: str) -> Optional[str]:
    """libcst drops blank lines before an indented comment at the end of a
    file (`x\n\n  # c` prints as `x\n  # c`): put the file's own ending
    back. None (do not fix) for any other difference, or when the fixes
    changed that ending."""
    if printed == text:
        return new
    p = 0
    n = min(len(text), len(printed))
    while p < n and text[p] == printed[p]:
        p += 1
    p = text.rfind("\n", 0, p) + 1  # from the start of that line
    kept = printed[p:]
    ending = text[p:]
    if not new.endswith(kept) or any(ln.strip() and not ln.lstrip().startswith("#")
                                     for ln in ending.splitlines()):
        return None
    return new[:len(new) - len(kept)] + ending


class _Tracker:
    """Finding identities across the passes of one fix run. An identity is
    (code, start, end, k): the anchor's span in the text first analysed (k
    tells apart findings of one rule on one span). Each tracked finding's
    anchor is carried through every rewrite."""

    def __init__(self, seed=()) -> None:
        # identity -> (code, start, end) in the current text
        self.live = {f.identity: f.identity[:3] for f in seed if f.identity is not None}
        self.fixed: set = set()
        self._first = not self.live
        self._n = 0
        # Findings that appeared during fixing and were fixed: (index of the
        # text they were found in, finding); `texts` are the texts analysed.
        self.appeared: list = []
        self.texts: list = []
        self.fixed_at: dict = {}  # identity -> index of the text it was fixed in

    def moved(self, old: str, new: str) -> None:
        m = spans.OffsetMap(old, new)
        self.live = {i: (a[0],) + m.span(a[1], a[2]) for i, a in self.live.items()}

    def match(self, findings: list) -> None:
        """Give each finding of this pass its identity; record what was fixed."""
        by_anchor: dict = {}
        by_start: dict = {}
        for i, a in self.live.items():
            by_anchor.setdefault(a, []).append(i)
            by_start.setdefault(a[:2], []).append(i)
        taken = set()
        seen: dict = {}
        exact = {}
        for n, f in enumerate(findings):  # exact anchors first, then the fallbacks
            ident = next((i for i in by_anchor.get(f.identity, ()) if i not in taken), None)
            if ident is not None:
                exact[n] = ident
                taken.add(ident)
        for n, f in enumerate(findings):
            anchor = f.identity
            ident = exact.get(n)
            if ident is None:
                # The anchor itself was rewritten by another fix: same code, same start.
                ident = next((i for i in by_start.get(anchor[:2], ()) if i not in taken), None)
            if ident is None:
                # Or a rewrite moved its start: same code, overlapping spans.
                ident = next((i for i, a in self.live.items() if i not in taken and a[0] == anchor[0]
                              and a[1] < max(anchor[2], anchor[1] + 1) and anchor[1] < max(a[2], a[1] + 1)),
                             None)
            if ident is None:
                k = seen[anchor] = seen.get(anchor, -1) + 1
                if self._first:
                    ident = anchor + (k,)
                else:  # appeared during fixing
                    self._n += 1
                    ident = anchor + (k, self._n)
                self.live[ident] = anchor
            taken.add(ident)
            f.identity = ident
            if f.fixed and len(ident) > 4:
                self.appeared.append((len(self.texts) - 1, f))
            if f.fixed:
                self.fixed_at[ident] = len(self.texts) - 1
                self.fixed.add(ident)
                self.live.pop(ident, None)
        self._first = False


def _settle(text: str, path: str, rules: Sequence[type], opts: Options, seed=(), first=None, report=False):
    """Passes until nothing changes: (findings of the last pass, new text or
    None, fixes applied, tracker). `first`: the first pass, already run.
    `report`: for a plain report, which reads only the tracker (run_rules)."""
    tracker = _Tracker(seed)
    done = first if first is not None else run_rules(text, path, prefilter(text, rules), opts)
    findings, new, n = done
    tracker.texts.append(text)
    tracker.match(findings)
    if new is None:
        return findings, None, 0, tracker
    total = n
    current, prev = new, text
    for _ in range(MAX_PASSES):
        tracker.moved(prev, current)
        # The pre-filter on this pass's text, over the whole selection: a
        # fix may remove a rule's tokens (skip it) or write them (AD201's
        # `x.detach()` statement is AD110's). While the AD1 rules report
        # nothing, they wait for the other rules' fixed point (run_rules).
        done = run_rules(current, path, prefilter(current, rules), opts, verify=True, report=report,
                         defer=DEFER_AD1 and getattr(done, "ad1_quiet", False))
        findings, nxt, n = done
        tracker.texts.append(current)
        tracker.match(findings)
        if nxt is None or nxt == current:
            remaining = [f for f in findings if not f.fixed]
            return remaining, (current if current != text else None), total, tracker
        total += n
        current, prev = nxt, current
    raise FixesDidNotSettle(f"fixes did not settle after {MAX_PASSES} passes")


def check_source(text: str, path: str, rules: Sequence[type], opts: Options):
    """Run the rules, applying fixes until nothing changes.

    Returns (findings, new_text or None, n_fixed). In fix mode the findings
    are the ones that remain after fixing. In report mode they include the
    findings that `--fix` (with the same `unsafe`) would go on to fix once
    the first ones are fixed: every line a fix changes has its finding."""
    if opts.fix:
        findings, new, n, _ = _settle(text, path, rules, opts)
        return findings, new, n
    report, state = _report_settled(text, path, rules, opts, report=True)
    if state:
        report = report + _appeared(state[2], report)
    return report, None, 0


def _report_settled(text: str, path: str, rules: Sequence[type], opts: Options, report: bool = False,
                    first=None):
    """(the report of `text`, state of the fixing passes that follow it):
    (remaining, settled text or None, tracker); None when nothing is to
    be fixed, False when fixing raised (`--fix` reports it; a report still
    stands). `report`: the caller reads only the tracker of that state
    (check_source), not what remains (run_rules)."""
    fix_opts = dataclasses.replace(opts, fix=True)
    admitted = prefilter(text, rules)
    try:
        if first is None:
            first = run_rules(text, path, admitted, fix_opts, report=report)
    except (cst.ParserSyntaxError, RecursionError):
        raise
    except Exception:  # noqa: BLE001 - applying a fix failed: the plain report
        return run_rules(text, path, admitted, opts)[0], False
    text_codes = {r.code for r in rules if r.has_text_pass()}
    if first[1] is None:
        return first[0], None
    seed = ()
    if any(f.fixed and f.code in text_codes for f in first[0]):
        # Text fixes only, tree rules not run yet: a report pass of its own,
        # whose findings the fixing passes then follow.
        seed = run_rules(text, path, admitted, opts)[0]
        _Tracker().match(seed)
    try:
        remaining, settled, _, tracker = _settle(text, path, rules, fix_opts, seed=seed, first=first, report=report)
        state = (remaining, settled, tracker)
    except Exception:  # noqa: BLE001
        state = False
    return list(seed) or [dataclasses.replace(f, fixed=False) for f in first[0]], state


def report_and_fix(text: str, path: str, rules: Sequence[type], unsafe: bool, first=None):
    """check_source's report and fix_reported's fix from one set of passes:
    (report, fixed text or None, report with .fixed set); the last two are
    None when fixing raised. `first`: the first fixing pass, already run."""
    base, state = _report_settled(text, path, rules, Options(unsafe=unsafe), first=first)
    if state is False:
        return base, None, None
    if state is None:
        return base, None, [dataclasses.replace(f, fixed=False) for f in base]
    remaining, settled, tracker = state
    report = base + _appeared(tracker, base)
    new, fixed = _mark_fixed(text, [dataclasses.replace(f, fixed=False) for f in base], remaining, settled, tracker)
    return report, (new if settled is not None else None), fixed


APPEARED = " (found once the other fixes in this file are applied)"


def _import_lines(text: str) -> set:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    out: set = set()
    stack = list(tree.body)
    while stack:  # statements only: an import is one, and expressions hold none
        n = stack.pop()
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update(range(n.lineno, n.end_lineno + 1))
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            sub = getattr(n, field, None)
            if isinstance(sub, list):
                stack.extend(sub)
    return out


def _appeared(tracker: _Tracker, report: list) -> list:
    """The findings that appeared during fixing and were fixed, placed in
    the first text: the text they were found in is mapped back pass by pass.
    An import the fixes made unused is a related note of the first reported
    finding fixed just before (it is part of that fix), not a finding."""
    out = []
    if not tracker.appeared:
        return out
    texts = tracker.texts
    imports: dict = {}  # text index -> its import lines (the first text may not parse: `async=`)
    # Maps back to the first text, only as far as the last text a finding appeared in.
    back = [spans.OffsetMap(texts[i], texts[i - 1]) for i in range(1, max(i for i, _ in tracker.appeared) + 1)]
    starts0 = spans.line_starts(texts[0])

    def place(i, line, col, end=False):
        pos = spans.offset(spans.line_starts(texts[i]), line, col)
        for m in reversed(back[:i]):
            pos = m(pos, end=end)
        ln = bisect.bisect_right(starts0, pos)
        return ln, pos - starts0[ln - 1] + 1

    for i, f in tracker.appeared:
        line, col = place(i, f.line, f.column)
        eline, ecol = place(i, f.end_line, f.end_column, end=True)
        related = [place(i, r[0], r[1]) + tuple(r[2:]) for r in f.related]
        if i not in imports:
            imports[i] = _import_lines(texts[i])
        if f.line in imports[i] and f.end_line in imports[i]:
            host = next((r for r in report if tracker.fixed_at.get(r.identity) == i - 1), None)
            if host is not None:
                note = (line, col, f"the fix changes this too: {f.message}")
                if note not in host.related:  # a report already given it (fix_reported's seed)
                    host.related = host.related + [note]
                continue
        # Its identity in the first text, for a caller that seeds a fix run with this report.
        # (Four items, a negative k: not one that appeared in that run.)
        ident = (f.code, spans.offset(starts0, line, col), spans.offset(starts0, eline, ecol), -len(out) - 1)
        out.append(dataclasses.replace(
            f, line=line, column=col, end_line=max(line, eline), end_column=ecol, fixed=False,
            message=f.message + APPEARED, related=related, identity=ident))
    return out


def _verify_parses(text: str, path: str) -> None:
    try:
        cst.parse_module(text)
    except cst.ParserSyntaxError as exc:  # our own bug: never write this out
        raise RuntimeError(f"a fix produced code that does not parse: {exc}") from exc


def _python_error(text: str):
    """(line, column, message) of the first error Python itself finds in
    `text`, or None. libcst's tokenizer errors carry no position and its
    parser errors point after the bad token."""
    nul = text.find("\0")
    if nul >= 0:
        starts = spans.line_starts(text)
        line = bisect.bisect_right(starts, nul)
        return line, nul - starts[line - 1] + 1, "a NUL byte"
    try:
        compile(text, "<file>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        if exc.lineno:
            return exc.lineno, exc.offset or 1, exc.msg
    except (ValueError, RecursionError, MemoryError):
        pass
    return None


def syntax_error_finding(path: str, exc: Exception) -> Finding:
    line = getattr(exc, "raw_line", None) or getattr(exc, "lineno", None) or 1
    col = getattr(exc, "raw_column", None)
    col = (col + 1) if isinstance(col, int) else 1
    msg = getattr(exc, "message", None) or str(exc).splitlines()[0]
    text = getattr(exc, "autodetach_text", None)
    where = _python_error(text) if text is not None else None
    if where is not None:  # Python's own position and words
        line, col, msg = where
    return Finding(
        path=path, line=line, column=col, end_line=line, end_column=col,
        code="AD000", name="syntax-error", message=f"cannot parse: {msg}",
    )


def unparsed_finding(path: str, text: str) -> Optional[Finding]:
    """AD000 for a file no rule admits, when Python cannot parse it, else None:
    a migration's report lists Python 2 files, torch or not (the stdlib
    parser is cheap; a check leaves such files unparsed, for speed)."""
    where = _python_error(text)
    if where is None:
        return None
    try:
        cst.parse_module(text)
        return None  # syntax newer than this Python (PEP 695 on 3.11): libcst reads it, the rules would too
    except Exception:  # noqa: BLE001 - any failure of libcst's parser means the file is unreadable
        pass
    line, col, msg = where
    return Finding(path=path, line=line, column=col, end_line=line, end_column=col,
                   code="AD000", name="syntax-error", message=f"cannot parse: {msg}")


def process_bytes(data: bytes, path: str, rules: Sequence[type], opts: Options) -> FileResult:
    """Everything for one file. Never raises."""
    result = FileResult(path=path, old_source=data)
    try:
        dec = decode(data)
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        # A finding (AD000), not an error: the file is bad, not the tool.
        result.findings.append(decode_error_finding(path, data, exc))
        return result
    text = dec.text
    if suppress.skip_file(text):
        result.skipped = True
        return result
    # The whole selection goes on: each pass applies the pre-filter to the
    # text it sees, where a fix may have written another rule's tokens.
    rules = [r for r in rules if r.code not in opts.ignore]
    if not prefilter(text, rules):
        # No rule can match, but a file that does not parse is still reported
        # (Python 2 code in a tree being migrated): the stdlib parser is cheap.
        result.skipped = True  # not parsed: a syntax error here goes unreported (docs/cli.md); migrate asks
        return result
    try:
        findings, new_text, n = check_source(text, path, rules, opts)
    except cst.ParserSyntaxError as exc:
        result.findings.append(syntax_error_finding(path, exc))
        return result
    except RecursionError:
        result.errors.append({"path": path, "message": "file too deeply nested to analyse"})
        result.crashed = True
        return result
    except Exception as exc:  # a rule crashed: report it, keep going
        result.errors.append({"path": path, "message": crash_message(exc)})
        result.crashed = True
        return result
    result.findings = sorted(findings, key=lambda f: (f.line, f.column, f.code))
    if new_text is not None:
        try:
            result.new_source = encode(new_text, dec)
        except UnicodeEncodeError as exc:
            result.errors.append({"path": path, "message": f"internal error: the fix cannot be encoded as "
                                                           f"{dec.encoding}: {exc.reason}"})
            result.crashed = True
            result.findings = []
            return result
        result.fixed = n
    return result


def crash_message(exc: BaseException) -> str:
    """One line naming the exception, the rule that raised it (when one did) and where."""
    frames = list(traceback.walk_tb(exc.__traceback__))
    rule = None
    for frame, _ in frames:
        owner = frame.f_locals.get("self")
        if isinstance(owner, Rule) and owner.code:
            rule = owner.code
    tb = traceback.extract_tb(exc.__traceback__)
    where = f"{tb[-1].filename}:{tb[-1].lineno}" if tb else "?"
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    who = f" in rule {rule}" if rule else ""
    what = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    return f"internal error{who}: {what} (at {where})"


def decode_error_finding(path: str, data: bytes, exc: Exception) -> Finding:
    line, col = 1, 1
    if isinstance(exc, SyntaxError) and "encoding declaration" in str(exc):
        try:  # no cookie and not UTF-8 (a binary file): say which byte
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            exc = bad
    if isinstance(exc, UnicodeDecodeError):
        start = exc.start + (3 if data.startswith(b"\xef\xbb\xbf") and exc.encoding.startswith("utf") else 0)
        line = data.count(b"\n", 0, start) + 1
        col = start - (data.rfind(b"\n", 0, start) + 1) + 1
        msg = f"cannot decode as {exc.encoding}: byte 0x{data[start]:02x}: {exc.reason}" if start < len(data) \
            else f"cannot decode as {exc.encoding}: {exc.reason}"
    else:
        line = getattr(exc, "lineno", None) or 1
        msg = f"cannot decode: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
    return Finding(path=path, line=line, column=col, end_line=line, end_column=col,
                   code="AD000", name="syntax-error", message=msg)


def _api_rules(select, ignore):
    from .registry import select_rules

    if isinstance(select, str):
        select = [select]
    if isinstance(ignore, str):
        ignore = [ignore]
    return select_rules(select=select, ignore=ignore)


def fix_code(source: str, select: Optional[Iterable[str]] = None, unsafe: bool = False,
             ignore: Optional[Iterable[str]] = None, path: str = "<string>"):
    """Public API: fix `source`, return (new_source, findings).

    `findings` are those found in the original source; each says whether
    it was fixed. A source that cannot be parsed comes back unchanged with
    one AD000 finding. A rule that crashes raises. `path` (where the source
    lives) lets the analysis follow its project-local imports."""
    rules = _api_rules(select, ignore)
    if suppress.skip_file(source):
        return source, []
    opts = Options(fix=True, unsafe=unsafe)
    try:
        first = run_rules(source, path, prefilter(source, rules), opts)
    except cst.ParserSyntaxError as exc:
        return source, [syntax_error_finding(path, exc)]
    text_codes = {r.code for r in rules if r.has_text_pass()}
    if any(f.fixed and f.code in text_codes for f in first[0]):
        # The first pass applied text fixes only and stopped there: the
        # report needs a pass of its own, and the fixing passes follow it
        # from that first pass (report_and_fix), not from the start again.
        _, new, fixed = report_and_fix(source, path, rules, unsafe, first=first)
        if fixed is not None:
            return (new if new is not None else source), fixed
        report, _, _ = check_source(source, path, rules, Options())
        return fix_reported(source, path, rules, unsafe, report)
    # The first fix pass found what a report pass finds: reuse it.
    remaining, settled, _, tracker = _settle(source, path, rules, opts, first=first)
    report = [dataclasses.replace(f, fixed=False) for f in first[0]]
    return _mark_fixed(source, report, remaining, settled, tracker)


def fix_reported(source: str, path: str, rules: Sequence[type], unsafe: bool, report: list):
    """fix_code's second half, for a caller that already has the report
    (check_source's findings, fix off): (new_source, report with .fixed set)."""
    opts = Options(fix=True, unsafe=unsafe)
    remaining, settled, _, tracker = _settle(source, path, rules, opts, seed=report)
    return _mark_fixed(source, report, remaining, settled, tracker)


def _mark_fixed(source: str, report: list, remaining: list, settled, tracker):
    if settled is None:
        for f in report:
            f.fixed = False
        return source, report
    left = {f.identity for f in remaining}
    # A remaining finding no tracked one turned into: while one of its code
    # is unaccounted for, nothing of that code counts as gone.
    unknown = {f.identity[0] for f in remaining if len(f.identity) > 4}
    for f in report:
        # Fixed when its own edits were applied; also when it is gone once
        # the fixes settled (a detach that AD103 adds ends an AD108 finding).
        gone = f.identity not in left and f.code not in unknown
        f.fixed = f.identity in tracker.fixed or gone
    # Findings that appeared during fixing and were fixed: reported too.
    extra = _appeared(tracker, report)
    for f in extra:
        f.fixed = True
    return settled, report + extra


def check_code(source: str, select=None, ignore=None) -> list:
    """Public API: the findings in `source`, without fixing. A source that
    cannot be parsed gives one AD000 finding."""
    rules = _api_rules(select, ignore)
    if suppress.skip_file(source):
        return []
    try:
        findings, _, _ = check_source(source, "<string>", rules, Options())
    except cst.ParserSyntaxError as exc:
        return [syntax_error_finding("<string>", exc)]
    return findings
