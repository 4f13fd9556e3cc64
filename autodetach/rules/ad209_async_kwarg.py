"""AD209: `.cuda(async=True)` becomes `.cuda(non_blocking=True)`.

`async` is a reserved word since Python 3.7, so such a file does not parse
(not with libcst, not with Python). This rule works on tokens, before the
tree is built: `check_text` reports and fixes, `mask_text` hides the word
from the parser (same length, so positions hold) when it is not fixed."""
from __future__ import annotations

import io
import keyword
import re
import tokenize
from dataclasses import dataclass

from ..findings import NONE, SAFE
from ..rule import Invalid, Report, Rule, TextEdit, Valid

# Methods whose `async=` argument torch renamed `non_blocking=` in 0.4.
_RENAMED = ("cuda", "to", "type", "copy_")
_SKIP = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)


@dataclass
class _Site:
    start: int  # character offsets of the `async` word
    end: int
    line: int
    col: int  # 0-based
    callee: str  # "" when the called thing is not a plain name
    method: bool


# `async`, then only blanks, line continuations or comments, then `=`.
_MAYBE_KWARG = re.compile(r"\basync(?:[\s\\]|#[^\n]*)*=")


def _sites(text: str) -> list:
    """Every `async` used as a keyword argument: `(` or `,` before it, `=`
    after it, directly inside a call's parentheses."""
    if "async" not in text or not _MAYBE_KWARG.search(text):
        return []  # the tokenizer below costs a quarter of a parse
    starts = []
    lines = io.StringIO(text)

    def readline():
        starts.append(lines.tell())
        return lines.readline()

    try:
        toks = [t for t in tokenize.generate_tokens(readline) if t.type not in _SKIP]
    except (tokenize.TokenError, SyntaxError, IndentationError, ValueError):
        return []
    # StringIO.tell() counts characters for str buffers; map rows to offsets.
    out = []
    stack = []  # one entry per open bracket: None, or (callee, method) for a call
    for i, tok in enumerate(toks):
        if tok.type == tokenize.OP and tok.string in "([{":
            entry = None
            if tok.string == "(" and i > 0:
                prev = toks[i - 1]
                before = toks[i - 2] if i > 1 else None
                defn = before is not None and before.type == tokenize.NAME and before.string in ("def", "class")
                if prev.type == tokenize.NAME and not keyword.iskeyword(prev.string) and not defn:
                    method = before is not None and before.type == tokenize.OP and before.string == "."
                    entry = (prev.string, method)
                elif prev.type == tokenize.OP and prev.string in (")", "]"):
                    entry = ("", False)
            stack.append(entry)
        elif tok.type == tokenize.OP and tok.string in ")]}":
            if stack:
                stack.pop()
        elif (tok.type == tokenize.NAME and tok.string == "async" and stack and stack[-1] is not None
              and 0 < i < len(toks) - 1
              and toks[i - 1].type == tokenize.OP and toks[i - 1].string in ("(", ",")
              and toks[i + 1].type == tokenize.OP and toks[i + 1].string == "="):
            row, col = tok.start
            start = starts[row - 1] + col
            out.append(_Site(start, start + len("async"), row, col, stack[-1][0], stack[-1][1]))
    return out


class AsyncKeyword(Rule):
    """
    `async=True`, the PyTorch 0.3 name of `non_blocking=True`.

    ## What it does
    Finds `async=` passed as a keyword argument: `x.cuda(async=True)`,
    `x.to(device, async=True)`, `x.type(t, async=True)`,
    `y.copy_(x, async=True)`. It works on tokens before the file is parsed,
    and never touches `async def`, `async with`, `async for`, strings or
    comments.

    ## Why it matters
    `async` became a reserved word in Python 3.7: a file that passes it as an
    argument is a `SyntaxError` and does not even import. PyTorch 0.4 renamed
    the argument `non_blocking`.

    ## Example
    ```python
    x = x.cuda(async=True)
    ```

    ## Fix
    ```python
    x = x.cuda(non_blocking=True)
    ```

    ## Fix safety
    Safe for torch's `.cuda()`, `.to()`, `.type()` and `.copy_()`: only the
    keyword's name changes, its meaning is the same (and the rest of the file
    is left byte for byte as it was). For any other callee the keyword is
    reported without a fix, since its new name is not known. While such a
    finding stays unfixed the file cannot run; the other rules then still
    report on it (the word is masked for parsing) but do not fix it.
    """

    code = "AD209"
    name = "async-keyword"
    summary = "`async=True` is a SyntaxError since Python 3.7; torch renamed it `non_blocking=True`"
    fix_safety = SAFE
    # `async` then `=`: bare "async" admitted every file with an `async def`.
    tokens = ("async=", "async =", "async  ", "async\t", "async\n", "async\r", "async\\")

    VALID = [
        Valid("""
            async def main():
                async with lock:
                    await x.to(dev, non_blocking=True)
        """),
        Valid("""
            msg = "call .cuda(async=True)"  # async=True is gone
        """),
        Valid("""
            x = x.cuda(non_blocking=True)
        """),
    ]
    INVALID = [
        Invalid("""
            x = x.cuda(async=True)
        """, """
            x = x.cuda(non_blocking=True)
        """, line=1, column=12, message="is a reserved word since Python 3.7"),
        Invalid("""
            batch = [t.to(device, async = True) for t in batch]
        """, """
            batch = [t.to(device, non_blocking = True) for t in batch]
        """, line=1, column=23, message="is a reserved word since Python 3.7"),
        Invalid("""
            inp = inp.cuda(
                0,
                async=True,  # overlap with compute
            )
            y.copy_(x, async=True)
        """, """
            inp = inp.cuda(
                0,
                non_blocking=True,  # overlap with compute
            )
            y.copy_(x, non_blocking=True)
        """, count=2, line=3, column=5, message="is a reserved word since Python 3.7"),
        Invalid("""
            h = x.type(torch.cuda.FloatTensor, async=True)
        """, """
            h = x.type(torch.cuda.FloatTensor, non_blocking=True)
        """, line=1, column=36, message="is a reserved word since Python 3.7"),
        Invalid("""
            prefetch(batch, async=True)
        """, None, note="not a torch method: reported only",
            line=1, column=17, message="is a reserved word since Python 3.7"),
    ]

    def check_text(self, text: str) -> list:
        reports = []
        for s in _sites(text):
            pos = (s.line, s.col + 1, s.line, s.col + 1 + len("async"))
            if s.method and s.callee in _RENAMED:
                reports.append(Report(
                    None,
                    f"`.{s.callee}(..., async=...)`: `async` is a reserved word since Python 3.7 (this "
                    f"line is a SyntaxError); PyTorch 0.4 renamed the argument `non_blocking`",
                    fix=SAFE, fix_title="Rename to `non_blocking=`", position=pos,
                    text_edits=[TextEdit(s.start, s.end, "non_blocking")],
                ))
            else:
                what = f"`{'.' if s.method else ''}{s.callee}(..., async=...)`" if s.callee else "`async=`"
                reports.append(Report(
                    None,
                    f"{what}: `async` is a reserved word since Python 3.7, so this file cannot run; "
                    f"rename the argument (torch's `.cuda`/`.to` call it `non_blocking`)",
                    fix=NONE, position=pos,
                ))
        return reports

    @staticmethod
    def mask_text(text: str) -> str:
        """The text with each `async=` keyword replaced by a name of the same
        length that is not in the text, so that libcst can parse it and every
        position stays where it was."""
        sites = _sites(text)
        if not sites:
            return text
        mask = next((m for m in (f"_a{n:03d}" for n in range(1000)) if m not in text), None)
        if mask is None:
            return text
        out, pos = [], 0
        for s in sites:
            out.append(text[pos:s.start])
            out.append(mask)
            pos = s.end
        out.append(text[pos:])
        return "".join(out)
