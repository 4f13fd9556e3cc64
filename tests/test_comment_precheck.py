"""lost_comments with a context: the `#` pre-check gives the comment walk's answer."""
import libcst as cst

from autodetach import fix_code
from autodetach.context import FileContext
from autodetach.rules._helpers import lost_comments

SRC = '''x = f(a,  # keep me
      b)
y = g("#not a comment", c)
z = h(d, e)
'''


def _calls():
    module = cst.parse_module(SRC)
    ctx = FileContext(module, text=SRC)
    calls = [stmt.body[0].value for stmt in module.body]
    return ctx, calls


def test_same_answer_with_and_without_context():
    ctx, calls = _calls()
    bare = cst.Name("a")
    for call in calls:
        assert lost_comments(call, bare, ctx) == lost_comments(call, bare)
    assert lost_comments(calls[0], bare, ctx) == ["# keep me"]
    assert lost_comments(calls[1], bare, ctx) == []  # a `#` in a string: the walk decides
    assert lost_comments(calls[2], bare, ctx) == []


def test_node_outside_the_tree_is_walked():
    ctx, _ = _calls()
    other = cst.parse_expression("k(a,  # c\n  b)")
    assert lost_comments(other, cst.Name("a"), ctx) == ["# c"]


def test_fix_keeps_a_comment_inside_removed_brackets():
    src = ("import torch\nfrom torch.autograd import Variable\n"
           "x = Variable(  # the input\n    torch.ones(2))\nprint(x)\n")
    out, _ = fix_code(src)
    assert "# the input" in out
    assert "Variable" not in out
