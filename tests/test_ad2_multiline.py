"""Fuzz over multi-line call shapes for every AD2 rule (issue 13).

Each case is a legacy call written in many layouts: arguments split across
lines, comments between them, trailing commas, an argument continued on the
next line (`pe[:n]\\n    .expand_as(e)`), at top level and inside a
function. Fixing must give code that parses and compiles, settle in one
pass, and leave the current-API twin of each call byte-identical."""
import itertools

import libcst as cst
import pytest

from autodetach.engine import fix_code

pytestmark = pytest.mark.slow  # about 560 fix runs

VARIABLE_IMPORT = "from torch.autograd import Variable\n"
HEADER = (
    "import torch\n"
    "import torch.nn as nn\n"
    "import torch.nn.functional as F\n"
    "from torch.autograd import Variable\n"
    "criterion = nn.CrossEntropyLoss()\n"
)

# code -> [(prefix, callee, args, suffix)]: `prefix + callee(args) + suffix`.
# `~` in an argument marks where it may continue on the next line.
LEGACY = {
    "AD201": [("y = ", "Variable", ["h~.data"], ""),
              ("y = ", "Variable", ["h~.data", "requires_grad=True"], "")],
    "AD202": [("y = emb + ", "Variable", ["pe[:n]~.expand_as(emb)", "requires_grad=False"], ""),
              ("y = ", "Variable", ["model(x)~.sum()"], " * 2"),
              ("y = ", "Variable", ["torch.rand(1, 1)~.mul(3)"], ""),
              ("w = 2 * ", "Variable", ["torch.zeros(3)~.float()", "requires_grad=True"], ""),
              ("w = 2 * ", "Variable", ["model(x)~.sum()", "requires_grad=True"], "")],
    "AD203": [("total += ", "criterion", ["out~.view(-1, 3)", "y"], ".data[0]")],
    "AD204": [("x = ", "Variable", ["torch.rand(2)~.float()", "volatile=True"], "")],
    "AD205": [("", "loss.backward", ["retain_variables=True"], ""),
              ("", "torch.autograd.backward", ["[a, b]", "retain_variables=keep"], "")],
    "AD206": [("ok = ", "isinstance", ["h", "Variable"], "")],
    "AD207": [("loss = ", "F.nll_loss", ["out~.log()", "y", "size_average=False"], "")],
    "AD208": [("", "nn.utils.clip_grad_norm", ["model~.parameters()", "0.5"], ""),
              ("z = ", "F.upsample", ["x", "scale_factor=2", "mode='nearest'"], "")],
    "AD209": [("x = ", "t.cuda", ["async=True"], "")],
    "AD210": [("", "p.data.add_", ["-lr", "p.grad~.data"], ""),
              ("", "v.addcmul_", ["1 - beta2", "g", "g~.abs()"], "")],
}
# Current-API twins: nothing to report, nothing to change.
CURRENT = {
    "AD201": [("y = ", "h.detach", [], "")],
    "AD202": [("y = emb + ", "pe.narrow", ["0", "0~.real", "n"], "")],
    "AD203": [("total += ", "criterion", ["out~.view(-1, 3)", "y"], ".item()")],
    "AD204": [("x = ", "torch.rand", ["2~.real", "dtype=torch.float32"], "")],
    "AD205": [("", "loss.backward", ["retain_graph=True"], "")],
    "AD206": [("ok = ", "isinstance", ["h", "torch.Tensor"], "")],
    "AD207": [("loss = ", "F.nll_loss", ["out~.log()", "y", "reduction='sum'"], "")],
    "AD208": [("", "nn.utils.clip_grad_norm_", ["model~.parameters()", "0.5"], "")],
    "AD209": [("x = ", "t.cuda", ["non_blocking=True"], "")],
    "AD210": [("", "p.data.add_", ["p.grad~.data", "alpha=-lr"], "")],
}


def _layouts():
    """(name, render): render(args, indent) -> the bracketed argument text."""
    def one_line(args, ind):
        return "(" + ", ".join(a.replace("~", "") for a in args) + ")"

    def per_line(args, ind, trailing=True, comment=False, cont=False):
        inner = ind + "        "
        parts = []
        for i, a in enumerate(args):
            a = a.replace("~", "\n" + inner + "    ") if cont else a.replace("~", "")
            last = i == len(args) - 1
            comma = "," if (not last or trailing) else ""
            note = f"  # arg {i}" if comment else ""
            parts.append(inner + a + comma + note)
        return "(\n" + "\n".join(parts) + "\n" + ind + ")"

    def hanging(args, ind, cont=False):
        # first argument on the call's line, the rest aligned below
        out = []
        for i, a in enumerate(args):
            a = a.replace("~", "\n" + ind + "        ") if cont else a.replace("~", "")
            out.append(a)
        return "(" + (",\n" + ind + "    ").join(out) + ")"

    def comment_lines(args, ind):
        inner = ind + "    "
        body = "".join(f"\n{inner}# before {i}\n{inner}{a.replace('~', '')}," for i, a in enumerate(args))
        return "(" + body + "\n" + ind + ")"

    return [
        ("one_line", one_line),
        ("per_line_trailing", lambda a, i: per_line(a, i)),
        ("per_line_no_trailing", lambda a, i: per_line(a, i, trailing=False)),
        ("per_line_comments", lambda a, i: per_line(a, i, comment=True)),
        ("continued_arg", lambda a, i: per_line(a, i, trailing=False, cont=True)),
        ("hanging", lambda a, i: hanging(a, i)),
        ("hanging_continued", lambda a, i: hanging(a, i, cont=True)),
        ("comment_lines", comment_lines),
    ]


LAYOUTS = _layouts()


def _source(shape, layout, nested: bool, header: str = HEADER) -> str:
    prefix, callee, args, suffix = shape
    ind = "    " if nested else ""
    call = f"{ind}{prefix}{callee}{layout(args, ind) if args else '()'}{suffix}\n"
    if nested:
        head = "\n\ndef evaluate(model, x, y, h, emb, pe, n, t, p, v, g, loss, out, lr, beta2, a, b, keep):\n"
        return header + head + f"{ind}total = 0\n" + call + f"{ind}return locals()\n"
    return header + call


def _cases(table, header=HEADER):
    for code, shapes in table.items():
        for (k, shape), (lname, layout), nested in itertools.product(
                enumerate(shapes), LAYOUTS, (False, True)):
            yield pytest.param(code, _source(shape, layout, nested, header),
                               id=f"{code}-{k}-{lname}-{'def' if nested else 'top'}")


def _parses(text: str) -> None:
    cst.parse_module(text)
    compile(text, "fixed.py", "exec")


@pytest.mark.parametrize("code,src", list(_cases(LEGACY)))
def test_multiline_fix_parses_and_settles(code, src):
    new, findings = fix_code(src, select=[code], unsafe=True)
    mine = [f for f in findings if f.code == code]
    assert mine, f"{code} did not fire on:\n{src}"
    assert new != src, f"{code} fixed nothing in:\n{src}"
    _parses(new)
    again, more = fix_code(new, select=[code], unsafe=True)
    assert again == new, f"not idempotent:\n{new}\n---\n{again}"
    assert not any(f.fixed for f in more)
    # Whole AD2 family at once: still parses, still settles.
    every, _ = fix_code(src, select=["AD2"], unsafe=True)
    _parses(every)
    assert fix_code(every, select=["AD2"], unsafe=True)[0] == every


@pytest.mark.parametrize("code,src", list(_cases(CURRENT, HEADER.replace(VARIABLE_IMPORT, ""))))
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_multiline_current_api_untouched(code, src, newline):
    src = src.replace("\n", newline)
    new, findings = fix_code(src, select=["AD2"], unsafe=True)
    assert [f for f in findings if f.code.startswith("AD2")] == [], [f.message for f in findings]
    assert new == src
