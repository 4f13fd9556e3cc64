"""report.html: one static page (inline CSS, the chart inline as SVG, no
script, no external asset), readable offline."""
from __future__ import annotations

from html import escape

from .report import COUNTS, capped_sections, cell, headline, repo_rows, rule_rows

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}
h1{margin-bottom:.2em} h2{margin-top:1.6em;border-bottom:1px solid #ddd}
.summary{background:#f4f7f6;border-left:4px solid #2a9d8f;padding:.6em 1em}
.summary li{margin:.2em 0}
table{border-collapse:collapse;margin:.5em 0} td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left}
td.n,th.n{text-align:right} tr:nth-child(even){background:#fafafa}
.cards{display:flex;gap:.6em;flex-wrap:wrap} .card{border:1px solid #ddd;padding:.4em .8em;border-radius:4px}
.card b{display:block;font-size:1.5em} .chart svg{max-width:100%;height:auto} .note{color:#666}
"""


def _table(head, rows, numeric=()) -> str:
    th = "".join(f'<th class="n">{escape(h)}</th>' if h in numeric else f"<th>{escape(h)}</th>" for h in head)
    body = []
    for row in rows:
        body.append("<tr>" + "".join(
            f'<td class="n">{x}</td>' if isinstance(x, int) else f"<td>{x}</td>" for x in row) + "</tr>")
    return f"<table><tr>{th}</tr>{''.join(body)}</table>\n"


def render(s, details, svg):
    yield f"<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>autodetach migration report</title>" \
          f"<style>{STYLE}</style></head><body>\n<h1>Migration report</h1>\n"
    yield '<ul class="summary">' + "".join(f"<li>{escape(x)}</li>" for x in headline(s)) + "</ul>\n"
    c = s.total.counts
    cards = "".join(f'<div class="card"><b>{c[k]}</b>{escape(k)}</div>' for k in COUNTS)
    yield f'<div class="cards">{cards}</div>\n'
    if svg:
        yield f'<h2>Findings per rule and per repository</h2>\n<div class="chart">{svg}</div>\n'
    else:
        yield f'<p class="note">{escape(s.chart_note)}</p>\n'
    yield "<h2>Per repository</h2>\n"
    cols = COUNTS[:-1]
    yield _table(("repository",) + cols, ([escape(r["repository"])] + [r[k] for k in cols] for r in repo_rows(s)),
                 numeric=cols)
    yield "<h2>Per rule</h2>\n"
    yield _table(("rule", "what it finds", "findings", "fixed", "left", "unsafe fixes applied"),
                 ([f'<a href="{escape(r["url"])}">{r["code"]}</a> {escape(r["name"])}', escape(r["summary"]),
                   r["findings"], r["fixed"], r["left"], r["unsafe_applied"]] for r in rule_rows(s)),
                 numeric=("findings", "fixed", "left", "unsafe fixes applied"))
    for kind, title, cols, rows, more in capped_sections(details):
        yield f"<h2>{escape(title)}</h2>\n"
        yield _table(cols, ([escape(str(cell(r, col))) for col in cols] for r in rows))
        if more:
            yield f'<p class="note">... and {more} more (see report.json).</p>\n'
    for note in s.notes:
        yield f'<p class="note">{escape(note)}</p>\n'
    yield "</body></html>\n"
