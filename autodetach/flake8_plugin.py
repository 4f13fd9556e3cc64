"""A report-only flake8 plugin: `flake8 --select AD` reports autodetach's
findings with the rules' messages. Fixes stay with `autodetach --fix`.

Registered as the `AD` entry point of `flake8.extension`. All rules run;
flake8's own --select/--ignore/--per-file-ignores and `# noqa` choose what is
shown. A file without any rule's tokens is not parsed (the pre-filter)."""
from __future__ import annotations

import re

from . import __version__

# Rules that report nothing in a file that never names torch: they resolve
# names through its torch imports (or return early without one). Some say
# so in their own `also_tokens` (AD211-AD215); the others' tokens
# ("Variable", "sigmoid", "detach") would parse torch-free files here.
NEED_TORCH = frozenset({"AD110", "AD201", "AD202", "AD206", "AD207", "AD208", "AD211", "AD212", "AD213",
                        "AD214", "AD215", "AD216", "AD217", "AD218", "AD220"})
# AD209 is about the `async=` keyword; its token `async` is in every asyncio file.
_ASYNC_KWARG = re.compile(r"\basync\s*=")


def rules_for(text: str) -> list:
    """The rules worth parsing `text` for (empty: it is not parsed)."""
    from .engine import prefilter
    from .registry import all_rules

    torch = "torch" in text
    return [r for r in prefilter(text, all_rules()) if (torch or r.code not in NEED_TORCH)
            and (r.code != "AD209" or _ASYNC_KWARG.search(text))]


class Plugin:
    name = "autodetach"
    version = __version__

    # flake8 hands an AST plugin the tree; autodetach parses with libcst
    # instead, and only when the pre-filter lets the file through.
    def __init__(self, tree, filename: str = "stdin", lines=None) -> None:
        self.filename = filename
        self.lines = lines or []

    def run(self):
        from . import suppress
        from .engine import Options, check_source, crash_message

        text = "".join(self.lines)
        rules = rules_for(text)
        if not rules or suppress.skip_file(text):
            return
        try:
            findings, _, _ = check_source(text, self.filename, rules, Options())
        except Exception as exc:  # a syntax error is flake8's E999; a crash is one line
            if type(exc).__name__ == "ParserSyntaxError":
                return
            yield 1, 0, f"AD000 autodetach: {crash_message(exc)}", type(self)
            return
        for f in sorted(findings, key=lambda f: (f.line, f.column, f.code)):
            yield f.line, max(0, f.column - 1), f"{f.code} {f.message}", type(self)
