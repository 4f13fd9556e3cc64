"""`autodetach verify ORIGINAL PATCHED`: verify a hand-written fix.

PATCHED takes ORIGINAL's place in a scratch copy of ORIGINAL's tree (so its
imports and data files resolve); the three runs are compared and every
changed hunk gets a verdict. Exit 0 when the verdict is fixed or
equivalent, 1 otherwise, 2 on a usage error."""
from __future__ import annotations

import json
import os
import sys

import click

from .compare import GOOD, UNVERIFIABLE, judge
from .integrate import (Target, Verifier, _rerun_longer, budget_note, diff_spans, entry_point, missing_uses,
                        reached, span_verdict)
from .isolate import SANDBOXES
from .report import isolation_line, render_rows
from .sandbox import find_tree_root


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("original", type=click.Path(exists=True, dir_okay=False))
@click.argument("patched", type=click.Path(exists=True, dir_okay=False))
@click.option("--run", "run_cmd", metavar="CMD", help="Run this command in the scratch tree instead of the script.")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True)
@click.option("--steps", type=click.IntRange(min=3), default=5, show_default=True,
              help="Step budget: optimizer steps per training loop (the loops end after it, the rest runs).")
@click.option("--timeout", type=click.IntRange(min=1), default=120, show_default=True, help="Seconds per run.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--sandbox", type=click.Choice(SANDBOXES), default="auto", show_default=True,
              help="Isolation of the runs (docs/security.md).")
def verify_command(original, patched, run_cmd, device, steps, timeout, output_format, sandbox):
    """Run ORIGINAL and PATCHED (and the retain_graph reference) and give a verdict."""
    with open(original, "rb") as fh:
        old = fh.read()
    with open(patched, "rb") as fh:
        new = fh.read()
    spans = diff_spans(old, new)
    shown = os.path.relpath(original)
    if not spans:
        click.echo(f"autodetach: error: {patched} is identical to {original}", err=True)
        return 2
    book = any(p.lower().endswith(".ipynb") for p in (original, patched))
    entry = "--run" if run_cmd else (None if book else entry_point(old) or entry_point(new))
    isolation = None
    if entry is None:
        why = ("notebooks are not run as scripts: export both with `jupyter nbconvert --to script` and verify "
               "the scripts, or give --run CMD that executes the notebook" if book
               else "no entry point: no main guard or top-level training code (use --run CMD)")
        verdicts = [{"verdict": UNVERIFIABLE, "details": why} for _ in spans]
        file_verdict = {"verdict": UNVERIFIABLE, "details": verdicts[0]["details"]}
    else:
        path = os.path.abspath(original)
        root = os.getcwd() if run_cmd else find_tree_root(path)
        if run_cmd and not path.startswith(os.path.abspath(root) + os.sep):
            root = find_tree_root(path)
        with Verifier(device=device, steps=steps, timeout=timeout, run_cmd=run_cmd, sandbox=sandbox) as v:
            isolation = v.isolation.as_dict()
            scratch, reqs = v.plan({path: (old, new, spans)}, root, None if run_cmd else path)
            runs = v.execute([reqs])[0]
            # beyond the budget or ended by the backstop: one longer try, as for --verify
            one = Target(None, path, old, new, [], spans=spans, script=None if run_cmd else path, scratch=scratch,
                         runs=runs)
            _rerun_longer(v, [one])
            runs = one.runs
            j = judge(runs["before"], runs["after"], runs["reference"])
            verdicts = [span_verdict(j, reached(runs, scratch, path, s), None, missing_uses(runs, scratch, path, s),
                                     budget_note(runs)) for s in spans]
            if one.longer:
                for d in verdicts:
                    d["longer_budget"] = one.longer
                    d["details"] = f"{d['details']} ({one.longer})"
        file_verdict = j.as_dict()
    if output_format == "json":
        doc = {"original": original, "patched": patched, "entry_point": entry, "verdict": file_verdict["verdict"],
               "details": file_verdict["details"], "file": file_verdict,
               "rewrites": [dict(v, lines=s.label) for s, v in zip(spans, verdicts)], "sandbox": isolation}
        click.echo(json.dumps(doc, indent=2))
    else:
        rows = []
        for s, v in zip(spans, verdicts):
            details = " ".join(str(v.get("details", "")).split())
            rows.append((f"{shown}:{s.label}", "patch", v["verdict"],
                         details if len(details) <= 110 else details[:107] + "..."))
        click.echo(render_rows(rows, title=f"Verification of {patched} against {original}"))
        click.echo(f"File verdict: {file_verdict['verdict']}: {file_verdict['details']}")
        if isolation:
            click.echo(isolation_line([isolation]))
    good = file_verdict["verdict"] in GOOD and all(v["verdict"] in GOOD for v in verdicts)
    sys.stdout.flush()
    return 0 if good else 1
