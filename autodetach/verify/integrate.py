"""`autodetach --verify`: run each fixed file before and after its fixes and
against the retain_graph reference, and give every rewrite a verdict."""
from __future__ import annotations

import ast
import difflib
import os
import re
from dataclasses import dataclass, field
from typing import Optional

from .compare import (CHANGED, GOOD, INTERRUPTED, PARTIAL, REGRESSED, UNREACHED, UNVERIFIABLE, Judgement, Run, judge,
                      same_error)
from .child import package_module
from .forkserver import ServerPool, shared_pool
from .isolate import hide_environ, resolve
from .loops import rewrite_file, rewrite_tree
from .uses import uses as find_uses
from .sandbox import Limits, RunRequest, Scratch, child_env, find_tree_root, stop_fresh, stopped

MAX_ATTRIBUTION = 4  # rule codes re-run one by one when a file's verdict is bad


# ------------------------------------------------------------- entry points

def _is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    parts = [node.test.left, *node.test.comparators]
    names = {p.id for p in parts if isinstance(p, ast.Name)}
    consts = {p.value for p in parts if isinstance(p, ast.Constant)}
    return "__name__" in names and "__main__" in consts


def entry_point(source: bytes) -> Optional[str]:
    """Why this file runs as a script ("main guard", "top-level code"), or
    None when running it would only define things."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if _is_main_guard(node):
            return "main guard"
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
            return "top-level code"
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            return "top-level code"
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and \
                    sub.func.attr in ("backward", "step", "grad"):
                return "top-level code"
    return None


def importer(path: str) -> Optional[str]:
    """A script next to `path` that imports it (`from engine import train`
    in main.py's main guard): run that when `path` has no entry point of its
    own, as `python main.py` would. The first such script by name."""
    d, mod = os.path.split(os.path.abspath(path))
    mod = mod[:-3] if mod.endswith(".py") else mod
    package = os.path.exists(os.path.join(d, "__init__.py"))  # `from .engine import train` counts too
    try:
        names = sorted(n for n in os.listdir(d) if n.endswith(".py") and n != mod + ".py")
    except OSError:
        return None
    for n in names:
        try:
            with open(os.path.join(d, n), "rb") as fh:
                src = fh.read()
            tree = ast.parse(src)
        except (OSError, SyntaxError, ValueError):
            continue
        imports = any((isinstance(x, ast.ImportFrom) and x.module == mod and not x.level) or
                      (isinstance(x, ast.Import) and any(a.name == mod for a in x.names)) or
                      (package and isinstance(x, ast.ImportFrom) and x.level == 1 and
                       (x.module == mod or x.module is None and any(a.name == mod for a in x.names)))
                      for x in ast.walk(tree))
        if imports and entry_point(src):
            return os.path.join(d, n)
    return None


def script_source(old: bytes, new: bytes) -> Optional[str]:
    # The original may not parse (async=True): then ask the fixed one.
    return entry_point(old) or entry_point(new)


# ------------------------------------------------------------- line spans

@dataclass
class Span:
    """A rewrite: lines in the original and where they went in the new file."""
    old: set
    new: set
    label: str = ""
    uses: set = field(default_factory=set)  # lines of `new` that use what the rewrite binds
    user_lines: dict = field(default_factory=dict)  # new line -> the user's line (original file)


def _lines(data: bytes) -> list:
    return data.decode("utf-8", "replace").splitlines()


def map_span(old: bytes, new: bytes, first: int, last: int) -> set:
    """The lines of `new` that replace original lines first..last (1-based)."""
    out: set = set()
    sm = difflib.SequenceMatcher(a=_lines(old), b=_lines(new), autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        lo, hi = i1 + 1, i2  # original lines of this block, 1-based inclusive
        if tag == "insert":
            lo, hi = i1, i1 + 1  # touches the lines around the insertion point
        if hi < first or lo > last:
            continue
        if tag == "equal":
            a, b = max(lo, first), min(hi, last)
            out.update(range(j1 + 1 + (a - lo), j1 + 1 + (b - lo) + 1))
        else:
            out.update(range(j1 + 1, j2 + 1))
    return out


def with_uses(span: Span, old: bytes, new: bytes) -> Span:
    """Fill the span's uses (in the new file) and their lines in the original."""
    span.uses = find_uses(new, span.new)
    if span.uses:
        sm = difflib.SequenceMatcher(a=_lines(old), b=_lines(new), autojunk=False)
        for a, b, size in sm.get_matching_blocks():
            for k in range(size):
                if b + k + 1 in span.uses:
                    span.user_lines[b + k + 1] = a + k + 1
    return span


def diff_spans(old: bytes, new: bytes) -> list:
    """One span per changed hunk (for `autodetach verify ORIGINAL PATCHED`)."""
    spans = []
    sm = difflib.SequenceMatcher(a=_lines(old), b=_lines(new), autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        o = set(range(i1 + 1, i2 + 1)) or {i1, i1 + 1}
        n = set(range(j1 + 1, j2 + 1)) or {j1, j1 + 1}
        label = f"{i1 + 1}" if i2 <= i1 + 1 else f"{i1 + 1}-{i2}"
        spans.append(with_uses(Span({x for x in o if x > 0}, {x for x in n if x > 0}, label), old, new))
    return spans


# ------------------------------------------------------------- the verifier

class Verifier:
    """Plans and runs the three runs of each file, in parallel through a pool
    of fork servers."""

    def __init__(self, device: str = "auto", steps: int = 5, timeout: float = 120, run_cmd: Optional[str] = None,
                 pool: Optional[ServerPool] = None, jobs: Optional[int] = None, sandbox: str = "auto") -> None:
        self.isolation = resolve(sandbox)
        if not self.isolation.isolated:
            hide_environ()
        self.device = device
        self.steps = max(3, int(steps))
        self.limits = Limits(timeout=float(timeout))
        self.run_cmd = run_cmd
        self.own_pool = False
        # jobs: runs at once, through the process's shared servers (each costs a torch import once)
        self.pool = pool or shared_pool(self.isolation, jobs)
        self.scratches: list = []
        self.progress = None  # called with (name, script, RunOutcome) as each run ends, from the pool's threads
        self.planned = None  # called with the number of runs of each batch before it starts

    def close(self) -> None:
        _ACTIVE.discard(self)
        for s in self.scratches:
            s.close()
        self.scratches = []
        if self.own_pool:
            self.pool.close()

    def stop(self) -> None:
        self.pool.stop()

    def __enter__(self):
        _ACTIVE.add(self)
        return self

    def __exit__(self, *exc):
        self.close()

    def request(self, scratch: Scratch, name: str, mode: str, replace: dict, trace: dict,
                script: Optional[str], steps: Optional[int] = None) -> RunRequest:
        """One run of the scratch tree with `replace` (path -> bytes) swapped in."""
        if not getattr(scratch, "loops_rewritten", False):
            # Once per scratch, before the first copy: the budget ends loops.
            rewrite_tree(scratch.pristine)
            scratch.loops_rewritten = True
        root = scratch.new_run(name, replace)
        for p in replace:
            rewrite_file(scratch.map(p, root))
        tmp = os.path.join(root, ".autodetach-tmp")
        cfg = {
            "mode": mode, "loops": True, "steps": steps or self.steps, "device": self.device,
            "retain": mode == "reference",
            "record": os.path.join(tmp, "record.json"), "root": root, "threads": 1,
            "trace": {scratch.map(p, root): sorted(lines) for p, lines in trace.items() if lines},
            # The CPU shim costs a Python call per torch op: only for code that mentions cuda.
            "cpu_shim": bool(scratch.mentions_cuda or script is None),
        }
        env = child_env([root], self.device, steps or self.steps)
        env["TMPDIR"] = tmp
        if script is not None:
            target = scratch.map(script, root)
            cfg["argv"] = [target]
            cfg["cwd"] = os.path.dirname(target)
            return RunRequest(cfg, env, cfg["cwd"], os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr"),
                              self.limits)
        cfg["per_pid"] = True
        cwd = os.getcwd()
        inside = os.path.commonpath([os.path.abspath(cwd), scratch.tree_root]) == scratch.tree_root
        run_cwd = scratch.map(cwd, root) if inside else root
        return RunRequest(cfg, env, run_cwd, os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr"),
                          self.limits, command=self.run_cmd)

    def plan(self, files: dict, tree_root: str, script: Optional[str], tag: str = "",
             steps: Optional[int] = None, scratch: Optional[Scratch] = None) -> tuple:
        """files: path -> (old bytes, new bytes, spans). Returns (scratch, reqs)."""
        if scratch is None:
            scratch = Scratch(tree_root)
            self.scratches.append(scratch)
        old_trace = {p: set().union(*[s.old for s in spans]) if spans else set()
                     for p, (_, _, spans) in files.items()}
        new_trace = {p: set().union(*[s.new | s.uses for s in spans]) if spans else set()
                     for p, (_, _, spans) in files.items()}
        replace = {p: new for p, (_, new, _) in files.items()}
        reqs = {
            "before": self.request(scratch, "before" + tag, "before", {}, old_trace, script, steps),
            "after": self.request(scratch, "after" + tag, "after", replace, new_trace, script, steps),
            "reference": self.request(scratch, "reference" + tag, "reference", {}, old_trace, script, steps),
        }
        return scratch, reqs

    def execute(self, plans: list) -> list:
        """plans: list of dict name -> RunRequest. Returns dicts name -> Run."""
        flat = [(i, name, req) for i, reqs in enumerate(plans) for name, req in reqs.items()]
        where = {s.dir: s for s in self.scratches}

        def done(k, o):
            i, name, req = flat[k]
            root = req.cfg.get("root") or ""
            scratch = where.get(os.path.dirname(root))
            if scratch is not None and not o.interrupted:  # each run's wall seconds, for the report
                scratch.times[os.path.basename(root).split("-", 1)[-1]] = round(o.wall, 3)
            if self.progress is not None:
                self.progress(name, os.path.basename((req.cfg.get("argv") or [""])[0]) or "--run", o)

        if flat and self.planned is not None:
            self.planned(len(flat))
        outs = self.pool.run_many([req for _, _, req in flat], done)
        result: list = [dict() for _ in plans]
        for (i, name, _), o in zip(flat, outs):
            result[i][name] = Run(name, o.record, o.returncode, o.timed_out, o.stdout, o.stderr, o.wall,
                                  o.interrupted)
        return result


_ACTIVE: set = set()  # the verifiers running now: interrupt() stops them


def interrupt() -> None:
    """SIGTERM or Ctrl-C (from a signal handler): no run starts any more,
    the runs in flight are killed with their process groups; the verifier
    then judges what finished and marks the rest interrupted."""
    stop_fresh()
    for v in list(_ACTIVE):
        v.stop()


def interrupted_verdict(runs: Optional[dict] = None) -> dict:
    done = sorted(n for n, r in (runs or {}).items() if not r.interrupted)
    d = {"verdict": INTERRUPTED, "details": "interrupted before its runs ended: not verified"
         + (f" (finished: {', '.join(done)})" if done else "")}
    if done:
        d["runs"] = {n: runs[n].summary() for n in done}
    return d


def cut_short(runs: dict) -> bool:
    return any(r is not None and r.interrupted for r in runs.values())


def missing_uses(runs: dict, scratch: Scratch, path: str, span: Span) -> list:
    """The span's uses that the after run never reached, as the user's lines
    (original file; "patched line N" where the line is new)."""
    run = runs.get("after")
    if not span.uses or run is None or not run.record:
        return []
    rel = os.path.relpath(os.path.abspath(path), scratch.tree_root)
    got = set((run.record.get("reached") or {}).get(rel, ()))
    return [str(span.user_lines[n]) if n in span.user_lines else f"patched line {n}"
            for n in sorted(span.uses - got)]


def budget_note(runs: dict) -> dict:
    """How the step budget ended each run: "loops" (the loops stopped and the
    rest of the program ran), "backstop" (the process was ended), or None."""
    return {name: (r.record or {}).get("stopped_by") for name, r in runs.items() if r is not None and r.record}


def reached(runs: dict, scratch: Scratch, path: str, span: Span) -> bool:
    rel = os.path.relpath(os.path.abspath(path), scratch.tree_root)
    for name, lines in (("before", span.old), ("reference", span.old), ("after", span.new)):
        run = runs.get(name)
        if run is None or not run.record:
            continue
        got = set((run.record.get("reached") or {}).get(rel, ()))
        if got & lines:
            return True
    return False


# Rules whose safe fix cuts gradients on purpose (truncated BPTT): a repair
# that diverges from the retain_graph reference is what they promise.
TRUNCATIONS = frozenset({"AD106"})


def allows_change(code: str, fix: Optional[str] = None) -> bool:
    """Whether a rewrite may change the parameter trajectory: unsafe fixes
    and the truncations may, safe fixes claim equivalence. `fix` is the
    finding's own safety (an AD102 detach is unsafe where its graph was
    inferred, an AD101 detach safe where nothing backwards it); without it,
    the rule's."""
    from ..findings import UNSAFE
    from ..registry import by_code

    if code in TRUNCATIONS:
        return True
    return (fix if fix is not None else getattr(by_code().get(code), "fix_safety", None)) == UNSAFE


def span_verdict(j: Judgement, was_reached: bool, code: Optional[str] = None, missing: Optional[list] = None,
                 budget: Optional[dict] = None, fix: Optional[str] = None) -> dict:
    if code is not None and allows_change(code, fix):
        j = j.accepting_change()
    d = j.as_dict()
    d["reached"] = was_reached
    if budget:
        d["budget"] = budget
        if "backstop" in budget.values():
            d["details"] = ("the budget's backstop ended a run (a loop it could not stop; the code after it "
                            "did not run): " + d["details"])
    if was_reached and missing and j.verdict in GOOD:
        d["file_verdict"] = j.verdict
        d["verdict"] = PARTIAL
        d["unreached_uses"] = missing
        d["details"] = (f"lines using the rewritten value never ran in the after run: {', '.join(missing)}"
                        f" (file: {j.verdict}: {d['details']})")
        return d
    if was_reached and (budget or {}).get("after") == "backstop" and j.verdict in GOOD:
        # Uses outside the file (`model.total` in main) are not followed: a
        # program that did not reach its end is not shown fixed.
        d["file_verdict"] = j.verdict
        d["verdict"] = PARTIAL
        d["details"] = f"the after run did not reach the program's end (file: {j.verdict}: {d['details']})"
        return d
    if not was_reached and j.verdict not in (REGRESSED, UNVERIFIABLE):
        d["file_verdict"] = j.verdict
        d["verdict"] = UNREACHED
        stopped = any((r.get("status") == "budget") for r in j.runs.values())
        d["details"] = "the rewritten line never ran" + (
            " within the step budget (raise --steps, or use --run)" if stopped else "") + f" (file: {j.verdict})"
    return d


def unverifiable(details: str) -> dict:
    return {"verdict": UNVERIFIABLE, "details": details}


# ------------------------------------------------------------- --verify

def _finding_span(f, old: bytes, new: bytes) -> Span:
    first, last = f.line, max(f.end_line or f.line, f.line)
    return with_uses(Span(set(range(first, last + 1)), map_span(old, new, first, last), f"{f.line}"), old, new)


def _fix_with(codes, old: bytes, path: str, settings) -> Optional[bytes]:
    """The file fixed with only these rules (None when nothing changes)."""
    from ..engine import Options, check_source
    from ..registry import by_code
    from ..textio import decode, encode

    table = by_code()
    rules = [table[c] for c in codes if c in table]
    dec = decode(old)
    try:
        _, new, _ = check_source(dec.text, path, rules, Options(fix=True, unsafe=settings.unsafe))
    except Exception:
        return None
    return encode(new, dec) if new is not None else None


def _findings_with_fixes(old: bytes, path: str, settings):
    """The original's findings, each marked fixed or not, and the fixed bytes
    (the engine returns only the findings that remain after fixing)."""
    from ..engine import fix_code
    from ..textio import decode, encode

    try:
        dec = decode(old)
        ignored = settings.ignored_for(path)
        codes = [c for c in settings.codes if c not in ignored]
        if not codes:
            return None
        new_text, report = fix_code(dec.text, select=codes, unsafe=settings.unsafe, path=path)
        return report, (encode(new_text, dec) if new_text != dec.text else None)
    except Exception:
        return None


@dataclass
class Target:
    """A file with fixed findings to verify, and what its runs gave."""
    result: object  # the runner's FileResult
    path: str  # on disk (result.path is the displayed one)
    old: bytes
    new: bytes
    fixed: list  # the fixed findings, each to get a verdict
    spans: list = field(default_factory=list)  # one per fixed finding
    entry: Optional[str] = None
    script: Optional[str] = None  # what runs: the file itself, or a script that imports it
    scratch: Optional[Scratch] = None
    runs: dict = field(default_factory=dict)  # name -> Run
    longer: Optional[str] = None  # what the longer budget's try did, or why there was none


NO_ENTRY = "no entry point: the file has no main guard or top-level training code (use --run CMD)"


def _old_bytes(r, path: str) -> Optional[bytes]:
    """The file as it was read; a result from the cache carries no bytes."""
    if r.old_source is not None:
        return r.old_source
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def plan_targets(results, files, settings) -> list:
    """The results with fixes, each with every finding (fixed or not) in
    `findings`: each fixed one gets a verdict."""
    from ..runner import display_path

    real = {display_path(p): p for p in files}
    targets = []
    for r in results:
        if r.new_source is None and not r.fixed:
            continue
        path = real.get(r.path, r.path)
        old = _old_bytes(r, path)
        if old is None:
            continue
        every = _findings_with_fixes(old, path, settings)
        if every is None:
            continue
        report, new = every
        fixed = [f for f in report if f.fixed]
        if not fixed:
            continue
        for f in report:
            f.path = r.path
        r.findings = report
        targets.append(Target(r, path, old, r.new_source if r.new_source is not None else new, fixed))
    return targets


_AT = re.compile(r" at (\S+?):(\d+): ")


def moved_on(d: dict, path: str) -> dict:
    """A verdict `regressed` because the after run stops elsewhere, while the
    original stopped in the rewritten file and after does not: the fix
    removed that error and the run went on to another file's (often one
    that other findings there fix, in a legacy package). That is not shown
    to be worse: unverifiable, saying where each run stopped."""
    runs = d.get("runs") or {}
    b = _AT.search(str((runs.get("before") or {}).get("error", "")))
    a = _AT.search(str((runs.get("after") or {}).get("error", "")))
    if d.get("verdict") != REGRESSED or not a or not b:
        return d
    name = os.path.basename(path)
    if os.path.basename(b.group(1)) != name or os.path.basename(a.group(1)) == name:
        return d
    d = dict(d, verdict=UNVERIFIABLE)
    d["details"] = (f"the fix removes the error the original meets in {name} (line {b.group(2)}); the after run then "
                    f"stops in another file, {a.group(1)}:{a.group(2)}, which this fix does not touch: "
                    + str(runs["after"]["error"]) + " (fix that file too, or verify the tree with --run)")
    return d


def _verdicts(j: Judgement, runs: dict, scratch: Scratch, path: str, pairs, entry: Optional[str] = None,
              longer: Optional[str] = None) -> dict:
    """id(finding) -> its verdict, for (finding, span) pairs judged by `j`."""
    out = {}
    for f, span in pairs:
        d = span_verdict(j, reached(runs, scratch, path, span), f.code, missing_uses(runs, scratch, path, span),
                         budget_note(runs), f.fix)
        d = moved_on(d, path)
        if longer:
            d["longer_budget"] = longer
            d["details"] = f"{d['details']} ({longer})"
        if entry is not None:
            d["entry_point"] = entry
        out[id(f)] = d
    return out


def verify_tree(v: Verifier, targets: list, settings) -> dict:
    """--run CMD: one set of runs of the whole tree with every fix applied."""
    root = os.path.abspath(getattr(settings, "root", None) or os.getcwd())
    if not all(os.path.abspath(t.path).startswith(root + os.sep) for t in targets):
        root = os.path.commonpath([os.path.dirname(os.path.abspath(t.path)) for t in targets])
    for t in targets:
        t.spans = [_finding_span(f, t.old, t.new) for f in t.fixed]
    scratch, reqs = v.plan({t.path: (t.old, t.new, t.spans) for t in targets}, root, None)
    for t in targets:
        t.scratch = scratch
    runs = v.execute([reqs])[0]
    verdicts = {}
    if cut_short(runs):
        for t in targets:
            for f in t.fixed:
                verdicts[id(f)] = interrupted_verdict(runs)
        return verdicts
    j = judge(runs["before"], runs["after"], runs["reference"])
    for t in targets:
        verdicts.update(_verdicts(j, runs, scratch, t.path, zip(t.fixed, t.spans), f"the --run command: {v.run_cmd}"))
    return verdicts


def verify_scripts(v: Verifier, targets: list, settings) -> dict:
    """Each file run as a script: its own before, after and reference runs."""
    verdicts, scripts, plans = {}, [], []
    for t in targets:
        t.entry = script_source(t.old, t.new)
        script = t.path
        if t.entry is None:
            script = importer(t.path)
            t.entry = f"run through {os.path.basename(script)}, which imports it" if script else None
        if t.entry is None:
            for f in t.fixed:
                verdicts[id(f)] = unverifiable(NO_ENTRY)
            continue
        module = package_module(script)
        if module is not None:
            t.entry += f", run as `python -m {module[0]}`"
        t.spans = [_finding_span(f, t.old, t.new) for f in t.fixed]
        t.script = script
        t.scratch, reqs = v.plan({t.path: (t.old, t.new, t.spans)}, find_tree_root(t.path), script)
        plans.append(reqs)
        scripts.append(t)
    for t, runs in zip(scripts, v.execute(plans)):
        t.runs = runs
    _rerun_longer(v, scripts)
    judged = []
    for t in scripts:
        if cut_short(t.runs):
            verdicts.update({id(f): interrupted_verdict(t.runs) for f in t.fixed})
            continue
        j = judge(t.runs["before"], t.runs["after"], t.runs["reference"])
        verdicts.update(_verdicts(j, t.runs, t.scratch, t.path, zip(t.fixed, t.spans), t.entry, t.longer))
        judged.append((t, j))
    verdicts.update(attribute(v, judged, settings))
    return verdicts


def _rerun_longer(v: Verifier, scripts: list) -> None:
    """Rewrites beyond the step budget (code after the training loop): one
    more try with a budget ten times larger, kept when it reaches more."""
    def all_reached(t):
        return all(reached(t.runs, t.scratch, t.path, sp) and not missing_uses(t.runs, t.scratch, t.path, sp)
                   for sp in t.spans)

    def backstopped(runs):
        return sum(bool(x.record and x.record.get("stopped_by") == "backstop") for x in runs.values())

    steps = min(10 * v.steps, 100)
    longer, which = [], []
    for t in scripts:
        if stopped() or cut_short(t.runs):
            continue
        budget = any(x.record and x.record.get("stopped_by_budget") for x in t.runs.values())
        # a loop in library code (Lightning's fit) ended by the backstop: the code after it never ran
        if budget and not all_reached(t):
            pass  # lines to reach: a longer run may reach them
        elif backstopped(t.runs):
            t.longer = beyond_reach(t.runs, steps / v.steps)
            if t.longer:
                continue  # everything reached, and the longer run would be ended there too
        else:
            continue
        _, reqs = v.plan({t.path: (t.old, t.new, t.spans)}, t.scratch.tree_root, t.script, tag="-long",
                         steps=steps, scratch=t.scratch)
        longer.append(reqs)
        which.append(t)
    for t, runs in zip(which, v.execute(longer)):
        if cut_short(runs):  # the first runs are judged: without the longer try a verdict is only weaker
            t.longer = f"a longer budget ({steps} steps) was interrupted; the first runs are judged"
            continue
        more = sum(reached(runs, t.scratch, t.path, sp) for sp in t.spans) > \
            sum(reached(t.runs, t.scratch, t.path, sp) for sp in t.spans)
        keep, t.longer = longer_kept(t.runs, runs, more, steps)
        if keep:
            t.runs = runs


def longer_kept(first: dict, runs: dict, more: bool, steps: int) -> tuple:
    """(whether the longer try's runs replace the first ones, what it did).
    Kept when they reach more lines or fewer end at the backstop; never when
    one ran past --timeout that did not the first time: a longer run cut by
    the clock shows less, not a failure (it was "regressed: timed out")."""
    def backstopped(rs):
        return sum(bool(x.record and x.record.get("stopped_by") == "backstop") for x in rs.values())

    late = [n for n, x in runs.items() if x.status == "timeout" and first.get(n) and first[n].status != "timeout"]
    if late:
        return False, (f"a longer budget ({steps} steps) ran past --timeout ({', '.join(sorted(late))}); "
                       "the first runs are judged")
    if all(x.completed or x.failed for x in runs.values()) and (more or backstopped(runs) < backstopped(first)):
        return True, f"tried again with a budget of {steps} steps" + (
            ", still ended by the backstop" if backstopped(runs) else "")
    return False, f"a longer budget ({steps} steps) reached no more"


def beyond_reach(runs: dict, ratio: float) -> Optional[str]:
    """Why a longer budget (`ratio` times the steps) cannot get a backstopped
    program to its end, where its library loop says how long it trains
    (Lightning's Trainer); None where it might, or nothing says."""
    plans = []
    for r in runs.values():
        rec = r.record or {}
        if rec.get("stopped_by") != "backstop":
            continue
        progress, done = rec.get("progress"), rec.get("opt_steps") or 0
        if not progress or not done:
            return None
        planned, most = progress[1], int(done * ratio)
        if planned is not None and planned <= most:
            return None
        plans.append((planned, most))
    if not plans:
        return None
    planned, most = plans[0]
    what = "trains without end" if planned is None else f"plans {planned} optimizer steps"
    return (f"not tried with a longer budget: the Trainer {what}, more than the {most} a longer run may make; "
            f"to see the program's end, verify with --run \"CMD\" and a short training")


def attribute(v: Verifier, judged: list, settings) -> dict:
    """A file `changed` or `regressed` with fixes from a few rules: re-run
    its after run with each rule's fixes alone, so the verdict lands on the
    rewrite that caused it. Returns the new verdicts (id(finding) -> dict)."""
    plans, meta = [], []
    for t, j in judged:
        codes = sorted({f.code for f in t.fixed})
        if j.verdict not in (CHANGED, REGRESSED) or not 1 < len(codes) <= MAX_ATTRIBUTION:
            continue
        for code in codes:
            one = _fix_with([code], t.old, t.result.path, settings)
            if one is None:
                continue
            mine = [_finding_span(f, t.old, one) for f in t.fixed if f.code == code]
            plans.append({"after": v.request(t.scratch, f"after-{code}", "after", {t.path: one},
                                             {t.path: set().union(*[sp.new | sp.uses for sp in mine])},
                                             t.script or t.path)})
            meta.append((t, code, one))
    verdicts = {}
    whole = {id(t): j for t, j in judged}
    for (t, code, one), extra in zip(meta, v.execute(plans)):
        if cut_short(extra):
            continue  # interrupted: the whole file's verdict stands for its rewrites
        j = judge(t.runs["before"], extra["after"], t.runs["reference"])
        if j.verdict == REGRESSED and whole[id(t)].verdict == CHANGED and same_error(t.runs["before"], extra["after"]):
            # Alone it leaves the original error, which the other rules' fixes remove: not a regression.
            j = Judgement(UNVERIFIABLE, f"alone, its rewrites leave the original error ({t.runs['before'].failure()}), "
                                        "which the other fixes in this file remove; with all of them the run "
                                        "completes: its own effect could not be shown", runs=j.runs)
        mixed = dict(t.runs, after=extra["after"])
        pairs = [(f, _finding_span(f, t.old, one)) for f in t.fixed if f.code == code]
        for key, d in _verdicts(j, mixed, t.scratch, t.path, pairs, t.entry, t.longer).items():
            d["isolated"] = f"verified with only the {code} rewrites applied"
            verdicts[key] = d
    return verdicts


def chosen_fixes(t: Target, verified_only: bool, settings) -> tuple:
    """(rule codes, bytes) of what goes to disk or into the diff: every fix,
    or with verified_only only the rules whose rewrites all verified."""
    every = {f.code for f in t.fixed}
    good = every - {f.code for f in t.fixed if f.verification["verdict"] not in GOOD}
    if not verified_only or good == every:
        return every, t.new
    if good:
        return good, _fix_with(sorted(good), t.old, t.result.path, settings)
    return set(), None


def apply_fixes(t: Target, chosen: set, data: Optional[bytes], write: bool, verified_only: bool, settings) -> None:
    """Write (or diff) the chosen fixes and mark which findings are fixed."""
    from ..runner import unified_diff
    from ..textio import content_hash, write_fixed

    r = t.result
    diff = getattr(settings, "diff", False)
    if verified_only and diff:
        r.diff = unified_diff(t.path, t.old, data) if data is not None else ""
    written = False
    if write and data is not None:
        problem = write_fixed(t.path, data, getattr(settings, "roots", ()), expect=content_hash(t.old))
        if problem is None:
            written = True
        else:
            r.errors.append({"path": r.path, "message": problem})
            r.write_failed = True
    shown = written if write else (diff and data is not None)
    for f in t.fixed:
        # Fixed: on disk (--fix) or in the diff (--diff); the rest stays in the report.
        f.fixed = bool(shown) and f.code in chosen
    if write:
        r.fixed = sum(1 for f in t.fixed if f.fixed)
        if r.fixed and data is not None:
            r.new_source = data


def _notebook_unverified(r, path, settings, write, verified_only) -> None:
    """Notebooks are not run by --verify yet: their fixes stay unverified,
    so --verified-only leaves them out, and otherwise a notebook gets what it
    gets without --verify, from the runner's analysis and write."""
    from ..engine import Options
    from ..runner import analyse, rules_for, write_back

    old = _old_bytes(r, path)
    if old is None:
        return
    rules = rules_for(settings.codes)
    fix = not verified_only and (write or settings.diff)
    opts = Options(fix=fix, unsafe=settings.unsafe, ignore=settings.ignored_for(path))
    res = analyse(path, old, r.path, opts, rules, diff=fix and settings.diff)
    if write and res.new_source is not None:
        write_back(path, old, res, settings.roots, opts.ignore, rules)
    r.findings, r.fixed, r.diff, r.new_source = res.findings, res.fixed, res.diff, res.new_source
    r.errors.extend(res.errors)
    r.write_failed = r.write_failed or res.write_failed
    from ..findings import SAFE

    for f in r.findings:  # each rewrite gets a verdict, saying why this one has none
        if f.fixed or (f.fixable and (f.fix == SAFE or settings.unsafe)):
            f.verification = unverifiable(NOTEBOOK)


NOTEBOOK = ("--verify does not run notebooks yet: this fix is not verified (export the notebook with `jupyter "
            "nbconvert --to script` and verify the script)")


def verify_results(results, files, settings, write=False, verified_only=False, run_cmd=None, device="auto",
                   steps=5, timeout=120, sandbox="auto", progress=None, jobs=None):
    """Fill each fixed finding's `verification`; with write=True write the
    fixed files (only the verified rewrites when verified_only). `progress`:
    an object with planned(n) and done(name, script, outcome), or None;
    `jobs`: runs at once (default: up to 3)."""
    from ..runner import display_path

    real = {display_path(p): p for p in files}
    for r in results:
        if r.path.lower().endswith(".ipynb") and (r.new_source is not None or r.fixed):
            _notebook_unverified(r, real.get(r.path, r.path), settings, write, verified_only)
    targets = plan_targets([r for r in results if not r.path.lower().endswith(".ipynb")], files, settings)
    if not targets:
        return results
    with Verifier(device=device, steps=steps, timeout=timeout, run_cmd=run_cmd, sandbox=sandbox, jobs=jobs) as v:
        if progress is not None:
            v.planned, v.progress = progress.planned, progress.done
        run = verify_tree if run_cmd else verify_scripts
        verdicts = run(v, targets, settings)
    for t in targets:
        times = dict(t.scratch.times) if t.scratch is not None else {}
        for f in t.fixed:
            f.verification = verdicts.get(id(f)) or unverifiable("not verified")
            f.verification["sandbox"] = v.isolation.as_dict()
            if times:  # every run of the file (longer budget, attribution too): where the time went
                f.verification["run_seconds"] = dict(times, total=round(sum(times.values()), 3))
        chosen, data = chosen_fixes(t, verified_only, settings)
        apply_fixes(t, chosen, data, write, verified_only, settings)
    return results
