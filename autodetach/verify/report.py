"""The verdict table for the text report: one row per verified rewrite,
plain text (aligned columns, no colour), readable on a terminal or a pipe."""
from __future__ import annotations

from collections import Counter

from .compare import VERDICTS

DETAILS_WIDTH = 110


def _rows(results) -> list:
    rows = []
    for r in results:
        for f in r.findings:
            v = f.verification
            if not v:
                continue
            details = " ".join(str(v.get("details", "")).split())
            if len(details) > DETAILS_WIDTH:
                details = details[:DETAILS_WIDTH - 3] + "..."
            where = f"{f.path}:cell {f.cell}" if f.cell is not None else f.path
            rows.append((f"{where}:{f.line}", f.code, v.get("verdict", "?"), details))
    rows.sort(key=lambda x: (x[0].rsplit(":", 1)[0], int(x[0].rsplit(":", 1)[1]), x[1]))
    return rows


def render_rows(rows, title: str = "Verification") -> str:
    if not rows:
        return f"{title}: nothing to verify (no fix was computed)."
    head = ("Rewrite", "Rule", "Verdict", "Details")
    widths = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(3)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
    lines = [title, fmt.format(*head), fmt.format(*("-" * w for w in widths), "-" * len(head[3]))]
    lines += [fmt.format(*r).rstrip() for r in rows]
    counts = Counter(r[2] for r in rows)
    order = [v for v in VERDICTS if counts.get(v)] + [v for v in counts if v not in VERDICTS]
    lines.append("Verdicts: " + ", ".join(f"{counts[v]} {v}" for v in order) + ".")
    return "\n".join(lines)


def isolation_line(sandboxes) -> str:
    """What contained the runs, from the verdicts' `sandbox` entries."""
    kinds = {s["kind"]: s for s in sandboxes if s}
    if not kinds:
        return ""
    weakest = kinds.get("none") or kinds.get("unshare") or next(iter(kinds.values()))
    return "Sandbox: " + weakest["details"] + "."


def render_table(results) -> str:
    table = render_rows(_rows(results))
    line = isolation_line([(f.verification or {}).get("sandbox") for r in results for f in r.findings])
    return table + ("\n" + line if line else "")
