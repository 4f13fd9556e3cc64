"""Generates docs/rules/ADNNN.md and the README rule index from the rules.

    python -m autodetach.docs          # write
    python -m autodetach.docs --check  # fail if anything is stale
"""
from __future__ import annotations

import os
import sys

from .registry import all_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- rules:begin -->", "<!-- rules:end -->"


def rule_page(rule) -> str:
    lines = [f"# {rule.code}: {rule.name}", "", f"Fix: **{rule.safety_label()}**.", "", rule.doc(), ""]
    if rule.INVALID:
        lines += ["## Reported", ""]
        for case in rule.INVALID:
            lines += ["```python", case.code.rstrip(), "```", ""]
            if case.expected is not None:
                lines += ["becomes" + (" (unsafe fix)" if case.unsafe else ""), "",
                          "```python", case.expected.rstrip(), "```", ""]
    if rule.VALID:
        lines += ["## Left alone", ""]
        for case in rule.VALID:
            if case.note:
                lines += [f"{case.note}:", ""]
            lines += ["```python", case.code.rstrip(), "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def rule_index() -> str:
    rows = ["| Code | Name | Fix | What it finds |", "| --- | --- | --- | --- |"]
    for r in all_rules():
        rows.append(f"| [{r.code}](docs/rules/{r.code}.md) | {r.name} | {r.safety_label()} | {r.summary} |")
    return "\n".join(rows)


def expected_files() -> dict:
    out = {}
    for r in all_rules():
        out[os.path.join(ROOT, "docs", "rules", f"{r.code}.md")] = rule_page(r)
    readme = os.path.join(ROOT, "README.md")
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as fh:
            text = fh.read()
        if BEGIN in text and END in text:
            head, rest = text.split(BEGIN, 1)
            _, tail = rest.split(END, 1)
            out[readme] = f"{head}{BEGIN}\n{rule_index()}\n{END}{tail}"
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    stale = []
    for path, text in expected_files().items():
        current = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as fh:
                current = fh.read()
        if current != text:
            stale.append(path)
            if "--check" not in argv:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(text)
    if "--check" in argv and stale:
        print("stale docs: " + ", ".join(os.path.relpath(p, ROOT) for p in stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
