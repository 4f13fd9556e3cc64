"""Fix builders shared by rules: the code they write always parses and binds
as meant."""
import libcst as cst
import pytest

from autodetach.rules._ad1_shared import detach


@pytest.mark.parametrize("src,expected", [
    ("x", "x.detach()"),
    ("1", "(1).detach()"),  # `1.detach()` reads as a float literal: a syntax error
    ("1.5", "1.5.detach()"),
    ("a, b", "(a, b).detach()"),  # a bare tuple would detach `b` only
    ("(a, b)", "(a, b).detach()"),
    ("a + b", "(a + b).detach()"),
    ("f(x)[0]", "f(x)[0].detach()"),
])
def test_detach_binds_to_the_whole_expression(src, expected):
    expr = cst.parse_expression(src)
    out = cst.Module(body=[]).code_for_node(detach(expr))
    assert out == expected
    cst.parse_expression(out)


def test_ad202_message_shows_the_code_its_fix_writes():
    """The message told the user to write `h.sum(1) * 0.5.detach()`, which
    detaches the constant only; the fix itself writes the parentheses."""
    from autodetach import check_code, fix_code

    src = "import torch\nfrom torch.autograd import Variable\n\n\ndef f(h):\n    return Variable(h.sum(1) * 0.5)\n"
    found = [f for f in check_code(src) if f.code == "AD202"]
    assert len(found) == 1
    assert "use `(h.sum(1) * 0.5).detach()`" in found[0].message, found[0].message
    assert "return (h.sum(1) * 0.5).detach()" in fix_code(src)[0]
