"""The chart of findings per rule and per repository: an SVG made with
matplotlib (the optional `report` extra). Without it the report says so."""
from __future__ import annotations

import io

MAX_BARS = 25  # repositories shown; the rest are summed into one bar


def render_svg(s):
    """(svg text or None, a note for the report when there is no chart)."""
    if not s.total.rules:
        return None, "No findings: no chart."
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot as plt
    except ImportError:
        return None, ("No chart: matplotlib is not installed "
                      "(pip install 'autodetach[report]' and run again to add it).")
    rules = sorted(s.total.rules)
    repos = sorted(s.repos.items(), key=lambda kv: -kv[1].counts["findings"])
    if len(repos) > MAX_BARS:
        rest = sum(t.counts["findings"] for _, t in repos[MAX_BARS - 1:])
        fixed_rest = sum(t.counts["fixed"] for _, t in repos[MAX_BARS - 1:])
        bars = [(n, t.counts["fixed"], t.counts["left"]) for n, t in repos[:MAX_BARS - 1]]
        bars.append((f"{len(repos) - MAX_BARS + 1} others", fixed_rest, rest - fixed_rest))
    else:
        bars = [(n, t.counts["fixed"], t.counts["left"]) for n, t in repos]
    with matplotlib.rc_context({"svg.hashsalt": "autodetach", "svg.fonttype": "none", "font.size": 9}):
        height = 1.8 + 0.22 * max(len(rules), len(bars))
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, height))
        _bars(ax1, rules, [s.total.rules[c]["fixed"] for c in rules], [s.total.rules[c]["left"] for c in rules],
              "Findings per rule")
        _bars(ax2, [b[0] for b in bars], [b[1] for b in bars], [b[2] for b in bars], "Findings per repository")
        handles, labels = ax1.get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper center", ncol=2, frameon=False)
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / height))
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
        plt.close(fig)
    svg = buf.getvalue()
    return svg[svg.index("<svg"):], ""


def _bars(ax, labels, fixed, left, title) -> None:
    y = range(len(labels))
    ax.barh(y, fixed, color="#2a9d8f", label="fixed")
    ax.barh(y, left, left=fixed, color="#e76f51", label="left for a human")
    ax.set_yticks(list(y), [str(x)[-40:] for x in labels])
    ax.invert_yaxis()
    ax.set_title(title)
    ax.set_xlabel("findings")
    ax.spines[["top", "right"]].set_visible(False)
