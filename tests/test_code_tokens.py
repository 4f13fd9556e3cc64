"""The pre-filter reads a rule's tokens in code only: comments and
docstrings that name `.backward()` or `Variable` admit nothing, while every
place the tokens might be code still admits (code_tokens)."""
import pytest

from autodetach.code_tokens import code_rules
from autodetach.engine import Options, prefilter, process_bytes, text_prefilter
from autodetach.registry import all_rules, by_code

AD1 = {"AD101", "AD102", "AD105", "AD108"}  # admitted by `.backward(`


def codes(text: str) -> set:
    return {r.code for r in prefilter(text, all_rules())}


def test_comment_only_tokens_admit_nothing(parses):
    src = b"import torch\n\n# call loss.backward() once per step\ndef f(x):\n    return x  # not Variable(x)\n"
    assert not codes(src.decode())
    assert text_prefilter(src.decode(), all_rules())  # the plain token scan would have parsed it
    res = process_bytes(src, "a.py", all_rules(), Options())
    assert res.skipped and parses == []


def test_docstring_only_tokens_admit_nothing():
    src = 'import torch\n\n\ndef step(loss):\n    """Call loss.backward() before this."""\n    return loss\n'
    assert not codes(src)


def test_code_tokens_still_admit():
    src = "import torch\n\n# backward below\nloss.backward()\n"
    assert AD1 <= codes(src)


@pytest.mark.parametrize("src", [
    # a `#` inside a string: the line has quotes, so it is code
    "import torch\nname = '#'; loss.backward()\n",
    # a docstring with code after it on its line
    'import torch\n\n\ndef f(loss):\n    """doc"""; loss.backward()\n',
    # a string in an expression is not a docstring: its text is kept
    'import torch\ncode = """x.backward()"""\nexec(code)\n',
    # a file the stdlib parser rejects keeps everything (the engine reports why)
    'import torch\n"""\nloss.backward()\n"""\ndef f(:\n',
], ids=["hash-in-string", "code-after-docstring", "string-expression", "syntax-error"])
def test_unsure_text_stays(src):
    assert AD1 <= codes(src)


def test_data_before_a_comment_still_admits_ad203():
    src = "import torch\nloss = crit(out, y)\nprint(loss.data  # the value\n      )\n"
    assert "AD203" in codes(src)
    res = process_bytes(src.encode(), "a.py", [by_code()["AD203"]], Options())
    assert not res.skipped


@pytest.mark.parametrize("src", [
    b'"""Variable(x) is gone."""\ndef f(:\n    pass\n',
    b"import torch\n# loss.backward() below\nprint 'python 2'\n",
], ids=["docstring", "comment"])
def test_syntax_error_with_tokens_outside_code_is_still_reported(src):
    res = process_bytes(src, "a.py", all_rules(), Options())
    assert [f.code for f in res.findings] == ["AD000"]


def test_code_rules_keeps_the_order_and_only_narrows():
    rules = all_rules()
    src = "# Variable\nimport torch\nloss.backward()\n"
    got = code_rules(src, lambda t: text_prefilter(t, rules), lambda t, among: [
        r for r in text_prefilter(t, rules) if r in among])
    assert got == [r for r in text_prefilter(src, rules) if r in got]
    assert "AD201" not in {r.code for r in got} and AD1 <= {r.code for r in got}
