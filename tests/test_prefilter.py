"""The text pre-filter: a file with none of the selected rules' tokens is
never parsed. A counting wrapper around libcst.parse_module (it still calls
the real parser) tells whether the engine parsed a file."""
import os

import pytest

from autodetach.engine import Options, prefilter, process_bytes, text_prefilter
from autodetach.registry import all_rules, by_code
from autodetach.rule import Rule
from autodetach.runner import Settings, run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NO_TOKENS = b"import os\n\ndef add(a, b):\n    return a + b\n\nprint(add(1, 2))\n"
WITH_TOKEN = b"from torch.autograd import Variable\nh = Variable(h.data)\n"


def test_file_without_tokens_is_not_parsed(parses):
    res = process_bytes(NO_TOKENS, "a.py", all_rules(), Options())
    assert res.skipped and res.findings == []
    assert parses == []


def test_syntax_error_without_tokens_is_not_parsed(parses):
    res = process_bytes(b"def f(:\n    pass\n", "a.py", all_rules(), Options())
    assert res.skipped and res.findings == [] and parses == []


def test_file_with_a_token_is_parsed(parses):
    res = process_bytes(WITH_TOKEN, "a.py", [by_code()["AD201"]], Options())
    assert not res.skipped
    assert [f.code for f in res.findings] == ["AD201"]
    # Parsed once per fixing pass: a report says what `--fix` would go on to fix.
    assert len(parses) == 2


def test_tokens_of_unselected_rules_do_not_admit(parses):
    # `Variable` is AD201's token; with only AD205 selected the file is skipped.
    res = process_bytes(WITH_TOKEN, "a.py", [by_code()["AD205"]], Options())
    assert res.skipped and parses == []


def test_runner_skips_files_without_tokens(tmp_path, parses):
    (tmp_path / "plain.py").write_bytes(NO_TOKENS)
    (tmp_path / "legacy.py").write_bytes(WITH_TOKEN)
    settings = Settings(codes=tuple(r.code for r in all_rules()))
    results = {os.path.basename(r.path): r for r in run([str(tmp_path / "plain.py"), str(tmp_path / "legacy.py")],
                                                        settings, jobs=1)}
    assert results["plain.py"].skipped
    assert not results["legacy.py"].skipped
    n = len(parses)
    parses.clear()
    process_bytes(WITH_TOKEN, "legacy.py", all_rules(), Options())
    assert n == len(parses) > 0  # legacy.py's passes only


class _Tokenless(Rule):
    code = "AD999"
    tokens = ()


class _A(Rule):
    code = "AD998"
    tokens = ("alpha", "shared")


class _B(Rule):
    code = "AD997"
    tokens = ("shared",)


def test_prefilter_semantics():
    rules = [_A, _Tokenless, _B]
    assert prefilter("nothing here", rules) == [_Tokenless]
    assert prefilter("alpha", rules) == [_A, _Tokenless]
    assert prefilter("x shared y", rules) == [_A, _Tokenless, _B]
    assert prefilter("", []) == []


def _naive(text, rules):
    return [r for r in rules if not r.tokens or (any(t in text for t in r.tokens)
                                                 and all(any(t in text for t in g) for g in r.also_tokens))]


class _C(Rule):
    code = "AD996"
    tokens = ("/",)
    also_tokens = (("torch",), (".long()", ".sum("))


def test_also_tokens_must_each_be_present():
    assert prefilter("a / b", [_C]) == []
    assert prefilter("import torch\na / b", [_C]) == []
    assert prefilter("import torch\na.sum() / b", [_C]) == [_C]
    assert prefilter("import torch\na.sum()", [_C]) == []  # the token itself still decides first


def test_prefilter_agrees_with_its_definition_on_the_corpus():
    rules = all_rules()
    corpus = os.path.join(ROOT, "corpus")
    seen = 0
    for d, _, files in os.walk(corpus):
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(d, name), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for subset in (rules, rules[::2], rules[1::3]):
                    assert text_prefilter(text, subset) == _naive(text, subset)
                    got = prefilter(text, subset)  # narrower: tokens in code only (test_code_tokens)
                    assert got == [r for r in _naive(text, subset) if r in got]
                seen += 1
    assert seen > 0


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_every_rule_declares_tokens_that_admit_its_cases(rule):
    """A token list that misses a rule's own INVALID case would hide findings."""
    assert rule.tokens, f"{rule.code} declares no pre-filter tokens"
    for case in rule.INVALID:
        assert prefilter(case.code, [rule]) == [rule], f"{rule.code}: pre-filter drops an INVALID case"


# A statement `Variable(h.data)`: AD201 rewrites it to `h.detach()`, which
# is AD110's (its token `detach` is not in the original text).
WRITES_TOKEN = b"import torch\nfrom torch.autograd import Variable\n\nh = torch.zeros(3)\nVariable(h.data)\nprint(h)\n"


def test_each_fix_pass_applies_the_prefilter_to_its_own_text():
    from autodetach import fix_code

    rules = all_rules()
    assert by_code()["AD110"] not in prefilter(WRITES_TOKEN.decode(), rules)
    res = process_bytes(WRITES_TOKEN, "a.py", rules, Options(fix=True, unsafe=True))
    api, _ = fix_code(WRITES_TOKEN.decode(), unsafe=True)
    assert res.new_source.decode() == api
    assert "h = h.detach()" in api and "Variable" not in api
    report = process_bytes(WRITES_TOKEN, "a.py", rules, Options())
    assert sorted(f.code for f in report.findings) == ["AD110", "AD201"]


def test_ad104_is_admitted_by_the_old_keyword():
    # The analysis reads `retain_variables=` as `retain_graph=`: AD104 reports it
    # on the original text, not only once AD205 has renamed it.
    src = (b"import torch\n\nw = torch.ones(3, requires_grad=True)\nopt = torch.optim.SGD([w], lr=0.1)\n"
           b"for step in range(3):\n    opt.zero_grad()\n    loss = (w * 2).sum()\n"
           b"    loss.backward(retain_variables=True)\n    opt.step()\n")
    report = process_bytes(src, "a.py", all_rules(), Options())
    assert sorted(f.code for f in report.findings) == ["AD104", "AD205"]
    fixed = process_bytes(src, "a.py", all_rules(), Options(fix=True))
    assert b"    loss.backward()\n" in fixed.new_source and fixed.findings == []


def test_prefilter_asked_again_for_the_same_text():
    # process_bytes and check_source ask for the same text in turn: the
    # second answer is the remembered one, for that selection only.
    text = "x shared y"
    first = prefilter(text, [_A, _Tokenless, _B])
    first.clear()  # a caller's change does not reach the next answer
    assert prefilter(text, [_A, _Tokenless, _B]) == [_A, _Tokenless, _B]
    assert prefilter(text, [_B]) == [_B]
    assert prefilter(text, [_C]) == []
    assert prefilter("alpha", [_A, _Tokenless, _B]) == [_A, _Tokenless]
