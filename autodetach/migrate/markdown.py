"""report.md: the summary first, then tables; long lists are cut at
MAX_ROWS (report.json has every row)."""
from __future__ import annotations

from .report import COUNTS, capped_sections, cell, headline, repo_rows, rule_rows


def _cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _table(head, rows) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    out += ["| " + " | ".join(_cell(x) for x in row) + " |" for row in rows]
    return "\n".join(out) + "\n\n"


def render(s, details, has_chart: bool):
    yield "# Migration report\n\n"
    yield "".join(f"- {line}\n" for line in headline(s)) + "\n"
    c = s.total.counts
    yield _table(COUNTS, [[c[k] for k in COUNTS]])
    yield ("![Findings per rule and per repository](chart.svg)\n\n" if has_chart else f"_{s.chart_note}_\n\n")
    yield "## Per repository\n\n"
    yield _table(("repository",) + COUNTS[:-1], [[r["repository"]] + [r[k] for k in COUNTS[:-1]] for r in repo_rows(s)])
    yield "## Per rule\n\n"
    yield _table(("rule", "what it finds", "findings", "fixed", "left", "unsafe fixes applied"),
                 [[f"[{r['code']}]({r['url']}) {r['name']}", r["summary"], r["findings"], r["fixed"], r["left"],
                   r["unsafe_applied"]] for r in rule_rows(s)])
    for kind, title, cols, rows, more in capped_sections(details):
        yield f"## {title}\n\n"
        yield _table(cols, [[cell(r, col) for col in cols] for r in rows])
        if more:
            yield f"... and {more} more (see report.json).\n\n"
    for note in s.notes:
        yield f"_{note}_\n\n"
