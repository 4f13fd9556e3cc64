"""Verdicts from the three runs' records.

Order of precedence (the first that applies):
  regressed    the after run fails (an error, a timeout, a crash), or still grows
               where the original grew;
  changed      the after run completes, but its parameter trajectory (or its
               losses) diverges from the retain_graph reference: the first
               parameter and step are named;
  fixed        the original fails or its live graph keeps growing, and the
               after run completes, stays flat and matches the reference (or,
               where the reference fails too, the original's numbers);
  repaired     the same repair, but the after run's numbers were not shown to
               be the reference's: the reference fails too and the original
               never completed, or the fix cuts the graph on purpose (a
               truncation, an unsafe fix) and the runs diverge (named);
  equivalent   the original ran fine and the after run matches the reference;
  partial      (per rewrite, set by the caller) fixed, equivalent or repaired, but some
               lines that use the rewritten value never ran in the after run;
  unreached    (per rewrite, set by the caller) the rewritten line never ran;
  unverifiable no entry point, or the runs could not be set up;
  interrupted  (set by the caller) verification was stopped before the runs ended."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

FIXED = "fixed"
EQUIVALENT = "equivalent"
REPAIRED = "repaired"
CHANGED = "changed"
REGRESSED = "regressed"
UNREACHED = "unreached"
PARTIAL = "partial"
UNVERIFIABLE = "unverifiable"
INTERRUPTED = "interrupted"  # verification was stopped (SIGTERM, Ctrl-C) before this rewrite's runs ended
VERDICTS = (FIXED, EQUIVALENT, REPAIRED, PARTIAL, CHANGED, REGRESSED, UNREACHED, UNVERIFIABLE, INTERRUPTED)
# What --verified-only writes: the runs show the repair. `repaired` says in
# its details why the numbers could not be confirmed.
GOOD = (FIXED, EQUIVALENT, REPAIRED)

# CPU runs repeat bit for bit: every fixed or equivalent verdict of the corpus
# agrees with its reference to 1e-7. A GPU's nondeterministic kernels
# (atomics, cuDNN) do not, so its runs get the looser bound.
RTOL = 1e-6
ATOL = 1e-9
RTOL_CUDA = 1e-4
ATOL_CUDA = 1e-6


def grows(series: list, abs_margin: float) -> bool:
    """True when the series keeps increasing: the last value is clearly above
    the value after the first couple of steps, and the middle lies between."""
    s = [x for x in series if x is not None]
    n = len(s)
    if n < 3:
        return False
    i = 1 if n >= 4 else 0
    early, mid, last = s[i], s[(i + n - 1) // 2], s[-1]
    margin = max(abs_margin, 0.1 * abs(early))
    return last > early + margin and mid > early and last > mid


@dataclass
class Run:
    """What one run amounts to."""
    name: str
    record: Optional[dict]
    returncode: Optional[int] = None
    timed_out: bool = False
    stdout: str = ""
    stderr: str = ""
    wall: float = 0.0
    interrupted: bool = False

    @property
    def status(self) -> str:
        if self.timed_out:
            return "timeout"
        if self.record is None:
            return "crashed"
        st = self.record.get("status")
        if st == "running":
            return "crashed"
        if st in ("ok", "budget") and self.returncode not in (0, None) and not self.record.get("stopped_by_budget"):
            return "error"
        return st

    @property
    def completed(self) -> bool:
        return self.status in ("ok", "budget")

    @property
    def failed(self) -> bool:
        return self.status in ("error", "timeout", "crashed")

    @property
    def exception(self) -> Optional[dict]:
        return (self.record or {}).get("exception")

    def events(self) -> list:
        return (self.record or {}).get("events") or []

    def series(self, key: str) -> list:
        evs = self.events()
        if not evs:
            return []
        steps = [e for e in evs if e["kind"] == "step"]
        if steps:  # one point per iteration: the first optimizer's steps
            first = steps[0]["opt"]
            return [e[key] for e in steps if e["opt"] == first]
        return [e[key] for e in evs]

    @property
    def grows(self) -> bool:
        return grows(self.series("live_nodes"), 8) or grows(self.series("live_bytes"), 4096)

    def growth(self) -> str:
        n = self.series("live_nodes")
        b = self.series("live_bytes")
        if not n:
            return "no steps"
        return f"live graph {n[0]}->{n[-1]} nodes, saved tensors {_size(b[0])}->{_size(b[-1])}"

    def failure(self) -> str:
        st = self.status
        if st == "timeout":
            return "timed out"
        if st == "crashed":
            tail = self.stderr.strip().splitlines()[-1:] if self.stderr.strip() else []
            why = f": {tail[0][:200]}" if tail else ""
            return f"crashed (exit {self.returncode}){why}"
        exc = self.exception or {}
        msg = (exc.get("message") or "").strip().splitlines()
        first = msg[0][:160] if msg else ""
        where = ""
        if exc.get("line"):
            where = f" at {exc['file']}:{exc['line']}" if exc.get("file") else f" at line {exc['line']}"
        out = f"{exc.get('type', 'error')}{where}: {first}"
        said = self.exit_message()
        return f"{out} ({said})" if said else out

    def exit_message(self) -> str:
        """What a program that exited with an error status printed last
        (argparse's `error: the following arguments are required`)."""
        exc = self.exception or {}
        if exc.get("type") != "SystemExit" or not str(exc.get("message") or "").isdigit():
            return ""  # sys.exit("text") carries its own message
        tail = self.stderr.strip().splitlines()[-1:]
        return tail[0].strip()[:200] if tail else ""

    def summary(self) -> dict:
        rec = self.record or {}
        evs = self.events()
        times = [e["time"] for e in evs[1:]] or [e["time"] for e in evs]
        out = {"status": self.status, "steps": rec.get("opt_steps", 0), "backward_calls": rec.get("backward_calls", 0),
               "wall_s": round(self.wall, 3)}
        if self.failed:
            out["error"] = self.failure()
        if evs:
            out["live_nodes"] = self.series("live_nodes")
            out["live_bytes"] = self.series("live_bytes")
            out["grows"] = self.grows
            out["time_per_step_s"] = round(sum(times) / len(times), 6) if times else None
        if rec.get("stopped_by"):
            out["stopped_by"] = rec["stopped_by"]  # the step budget: "loops" or "backstop"
        if rec.get("peak_memory"):
            out["peak_memory"] = rec["peak_memory"]
        if rec.get("device"):
            out["device"] = rec["device"] + (" (cuda->cpu shim)" if rec.get("cpu_shim") else "")
        return out


def _size(n) -> str:
    n = n or 0
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f}{unit}" if unit == "B" else f"{n:.1f}{unit}"
        n /= 1024
    return str(n)


@dataclass
class Divergence:
    step: int  # 1-based optimizer step (or backward call)
    what: str  # parameter name, or "loss", or "steps"
    detail: str
    unit: str = "optimizer step"

    def describe(self) -> str:
        return f"diverges from the reference at {self.unit} {self.step}: {self.what} {self.detail}"


def _close(a: list, b: list, rtol: float, atol: float):
    if len(a) != len(b):
        return False, float("inf")
    diff = max((abs(x - y) for x, y in zip(a, b)), default=0.0)
    scale = max((abs(y) for y in b), default=0.0)
    return diff <= atol + rtol * scale, diff


def _on_gpu(run: Run) -> bool:
    rec = run.record or {}
    return "cuda" in str(rec.get("device") or "") and not rec.get("cpu_shim")


def divergence(a: Run, b: Run, rtol: Optional[float] = None, atol: Optional[float] = None) -> Optional[Divergence]:
    """Where run a first departs from run b; None when they agree."""
    gpu = _on_gpu(a) or _on_gpu(b)
    rtol = rtol if rtol is not None else (RTOL_CUDA if gpu else RTOL)
    atol = atol if atol is not None else (ATOL_CUDA if gpu else ATOL)
    ea, eb = a.events(), b.events()
    n_step = n_back = 0
    for x, y in zip(ea, eb):
        if x["kind"] == "step":
            n_step += 1
            k = n_step
        else:
            n_back += 1
            k = n_back
        if x["kind"] != y["kind"] or x["opt"] != y["opt"]:
            return Divergence(k, "steps", f"(the runs step different optimizers: #{x['opt']} vs #{y['opt']})")
        py = {p[0]: p for p in y["params"]}
        for key, name, _, vals in x["params"]:
            other = py.get(key)
            if other is None:
                return Divergence(k, name, "(missing from the reference)")
            ok, diff = _close(vals, other[3], rtol, atol)
            if not ok:
                d = Divergence(k, name, f"(max |difference| {diff:.3g})")
                if x["kind"] != "step":
                    d.unit = "backward call"
                return d
    la = (a.record or {}).get("losses") or []
    lb = (b.record or {}).get("losses") or []
    for k, (x, y) in enumerate(zip(la, lb), start=1):
        if x is None or y is None:
            continue
        if abs(x - y) > atol + rtol * abs(y):
            return Divergence(k, "loss", f"{x:.6g} vs {y:.6g}", unit="backward call")
    sa = sum(1 for e in ea if e["kind"] == "step")
    sb = sum(1 for e in eb if e["kind"] == "step")
    if len(ea) != len(eb):
        return Divergence(min(sa, sb) + 1, "steps", f"(after made {sa} optimizer steps, the reference {sb})")
    if not ea and not la and not lb and a.stdout != b.stdout:
        return Divergence(0, "output", "(no step observed, and the printed output differs)")
    return None


@dataclass
class Judgement:
    verdict: str
    details: str
    equivalent: Optional[bool] = None
    divergence: Optional[Divergence] = None
    runs: dict = field(default_factory=dict)
    # For CHANGED: set when the original failed or grew and the after run is
    # fine, i.e. the rewrite repairs the program but computes something else.
    repair: Optional[str] = None

    def accepting_change(self) -> "Judgement":
        """The verdict for a rewrite that says it changes the gradients (a
        truncation such as AD106, or an unsafe fix): a repair that diverges
        from the reference is `repaired` (not equivalent), not `changed`:
        `fixed` claims the reference's numbers."""
        if self.verdict != CHANGED or self.repair is None:
            return self
        return Judgement(REPAIRED, self.repair, equivalent=False,
                         divergence=self.divergence, runs=self.runs)

    def as_dict(self) -> dict:
        d = {"verdict": self.verdict, "details": self.details}
        if self.equivalent is not None:
            d["equivalent"] = self.equivalent
        if self.divergence is not None:
            d["divergence"] = {"step": self.divergence.step, "unit": self.divergence.unit,
                               "parameter": self.divergence.what, "detail": self.divergence.detail}
        if self.runs:
            d["runs"] = self.runs
        return d


def _steps(n: int) -> str:
    return "1 step" if n == 1 else f"{n} steps"


_NUMBER = re.compile(r"\d+")


def _error_key(r: Run) -> tuple:
    """What identifies a failure across runs: the exception, or for a process
    that died the last line it printed. Numbers are masked: process ids,
    addresses and counters differ between runs of the same failure."""
    exc = r.exception or {}
    if exc:
        text = exc.get("message") or ""
    else:
        lines = r.stderr.strip().splitlines()
        text = lines[-1] if lines else ""
    return r.status, exc.get("type"), _NUMBER.sub("0", text.strip())[:80]


def same_error(a: Run, b: Run) -> bool:
    return _error_key(a) == _error_key(b)


def judge(before: Run, after: Run, reference: Optional[Run]) -> Judgement:
    runs = {r.name: r.summary() for r in (before, after, reference) if r is not None}

    def J(verdict, details, **kw):
        return Judgement(verdict, details, runs=runs, **kw)

    for r in (before, after, reference):
        if r is not None and r.status == "setup_error":
            return J(UNVERIFIABLE, f"the {r.name} run could not start: {r.failure()}")
    if not after.completed:
        if before.failed and same_error(before, after):
            if after.status in ("error", "crashed") and reference is not None and same_error(reference, after):
                # Nothing got worse and nothing was shown: the error is not the
                # one the fix addresses (a missing data file), or comes first.
                # The original's failure: its lines are the user's (a fix that
                # adds lines moves the same error further down).
                hint = ""
                if before.exit_message() and not before.events():
                    # argparse and the like: the program stopped before training
                    script = (before.exception or {}).get("file") or "SCRIPT"
                    hint = f"; it exited before training: give it arguments with --run \"python {script} ARGS\""
                return J(UNVERIFIABLE, f"every run fails the same way, the reference too: {before.failure()}; "
                                       "the fix could not be shown to make a difference" + hint)
            if after.status == "timeout" and reference is not None and reference.status == "timeout":
                # a slow program (or a busy machine), not a fix that made anything worse
                return J(UNVERIFIABLE, f"every run timed out, the reference too (after {after.wall:.0f} s): the "
                                       "runs showed nothing; raise --timeout, or verify with --run \"CMD\" and a "
                                       "short training")
            return J(REGRESSED, f"the fix does not remove the error: {before.failure()}")
        if before.failed:
            return J(REGRESSED, f"after fails differently: {after.failure()} (before: {before.failure()})")
        return J(REGRESSED, f"after fails: {after.failure()} (the original ran)")

    base = None
    if reference is not None and reference.completed:
        base = reference
    elif before.completed:
        base = before
    div = divergence(after, base) if base is not None else None
    against = "the retain_graph reference" if base is reference else "the original"
    n_steps = sum(1 for e in after.events() if e["kind"] == "step") or len(after.events())
    before_bad = before.failed or before.grows
    why = f"before: {before.failure()}" if before.failed else f"before grows ({before.growth()})"
    if div is not None:
        if base is not reference:
            div.detail += " (compared with the original; the reference run failed)"
        j = J(CHANGED, f"after runs but {div.describe()}", equivalent=False, divergence=div)
        if before_bad and not after.grows:
            j.repair = f"after completes, stays flat, and {div.describe()}; {why}"
        return j

    if before_bad:
        if after.grows:
            if base is not None:
                return J(EQUIVALENT, f"{why}; after matches {against} but still grows ({after.growth()})",
                         equivalent=True)
            return J(REGRESSED, f"{why}; after still grows ({after.growth()})")
        if base is None:
            ref = (f"the retain_graph reference fails too ({reference.failure()})" if reference is not None
                   else "there is no retain_graph reference to run")
            return J(REPAIRED, f"after completes and stays flat, but its numbers could not be compared: {ref}; {why}",
                     equivalent=False)
        return J(FIXED, f"after completes, stays flat, matches {against} over {_steps(n_steps)}; {why}",
                 equivalent=True)
    if base is None:  # cannot happen: before completed
        return J(UNVERIFIABLE, "no run to compare with")
    if n_steps:
        return J(EQUIVALENT, f"after matches {against} over {_steps(n_steps)}", equivalent=True)
    return J(EQUIVALENT, f"no optimizer step observed; after prints the same output as {against}",
             equivalent=True)
