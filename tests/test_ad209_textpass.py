"""AD209's token-level pass, through the real engine: `async=` is fixed before
parsing, masked for the other rules when it is not fixed, and nothing else in
the file moves (CRLF, BOM, strings, comments, `async def`)."""
import libcst as cst

from autodetach.engine import Options, check_source, process_bytes
from autodetach.registry import by_code
from autodetach.rules.ad209_async_kwarg import AsyncKeyword

RULES = [by_code()["AD201"], by_code()["AD209"]]

BOTH = (
    "import torch\n"
    "from torch.autograd import Variable\n"
    "x = torch.zeros(3).cuda(async=True)\n"
    "h = Variable(x.data)\n"
)


def _codes(findings):
    return sorted((f.code, f.line, f.column, f.end_line, f.end_column) for f in findings)


def test_fix_mode_fixes_async_and_the_tree_rule():
    remaining, new, n = check_source(BOTH, "t.py", RULES, Options(fix=True))
    assert remaining == []
    assert n == 2
    assert new == (
        "import torch\n"
        "from torch.autograd import Variable\n"
        "x = torch.zeros(3).cuda(non_blocking=True)\n"
        "h = x.detach()\n"
    )
    # Settled: nothing more to do.
    _, again, _ = check_source(new, "t.py", RULES, Options(fix=True))
    assert again is None


def test_report_mode_reports_both_with_positions():
    findings, new, _ = check_source(BOTH, "t.py", RULES, Options())
    assert new is None
    assert _codes(findings) == [("AD201", 4, 5, 4, 21), ("AD209", 3, 25, 3, 30)]
    ad209 = next(f for f in findings if f.code == "AD209")
    assert ad209.fix == "safe" and not ad209.fixed


def test_positions_on_the_masked_line_hold():
    src = (
        "from torch.autograd import Variable\n"
        "y = Variable(x.data).cuda(async=True); z = Variable(w.data)  # é\n"
    )
    findings, _, _ = check_source(src, "t.py", RULES, Options())
    assert _codes(findings) == [("AD201", 2, 5, 2, 21), ("AD201", 2, 44, 2, 60), ("AD209", 2, 27, 2, 32)]
    remaining, new, _ = check_source(src, "t.py", RULES, Options(fix=True))
    assert remaining == []
    assert new == (
        "from torch.autograd import Variable\n"
        "y = x.detach().cuda(non_blocking=True); z = w.detach()  # é\n"
    )


def test_non_ascii_before_async_counts_characters():
    src = "s = 'ééé'; x = t.to(d, async=True)\n"
    (f,), _, _ = check_source(src, "t.py", [AsyncKeyword], Options())
    assert (f.line, f.column, f.end_column) == (1, 24, 29)
    _, new, _ = check_source(src, "t.py", [AsyncKeyword], Options(fix=True))
    assert new == "s = 'ééé'; x = t.to(d, non_blocking=True)\n"


def test_strings_comments_and_async_def_stay_byte_identical():
    data = (
        b"import torch\n"
        b"# x.cuda(async=True) was the old spelling\n"
        b"doc = 'x.cuda(async=True)'\n"
        b"f = f\"{doc} async=\"\n"
        b"async def go(q):\n"
        b"    async with q:\n"
        b"        async for t in q:\n"
        b"            await t.to('cpu', non_blocking=True)\n"
    )
    res = process_bytes(data, "s.py", RULES, Options(fix=True, unsafe=True))
    assert res.findings == [] and res.errors == []
    assert res.new_source is None
    assert AsyncKeyword.mask_text(data.decode()) == data.decode()


def test_crlf_and_bom_are_kept():
    text = BOTH.replace("\n", "\r\n")
    data = b"\xef\xbb\xbf" + text.encode("utf-8")
    res = process_bytes(data, "w.py", RULES, Options(fix=True))
    assert res.errors == [] and res.fixed == 2
    assert res.new_source == b"\xef\xbb\xbf" + (
        "import torch\r\n"
        "from torch.autograd import Variable\r\n"
        "x = torch.zeros(3).cuda(non_blocking=True)\r\n"
        "h = x.detach()\r\n"
    ).encode("utf-8")
    report = process_bytes(data, "w.py", RULES, Options())
    assert _codes(report.findings) == [("AD201", 4, 5, 4, 21), ("AD209", 3, 25, 3, 30)]


def test_unknown_callee_is_reported_and_nothing_is_written():
    src = (
        "from torch.autograd import Variable\n"
        "prefetch(batch, async=True)\n"
        "h = Variable(x.data)\n"
    )
    findings, new, _ = check_source(src, "t.py", RULES, Options(fix=True, unsafe=True))
    assert new is None  # the file still cannot run: no tree fix on masked text
    assert sorted((f.code, f.fix, f.fixed) for f in findings) == [
        ("AD201", "safe", False), ("AD209", "none", False)]


def test_suppressed_async_is_not_fixed_and_nothing_is_written():
    src = "x = x.cuda(async=True)  # noqa: AD209\nfrom torch.autograd import Variable\nh = Variable(x.data)\n"
    findings, new, _ = check_source(src, "t.py", RULES, Options(fix=True))
    assert new is None
    assert [f.code for f in findings] == ["AD201"]


def test_python2_file_is_a_syntax_error_not_a_crash():
    data = b"print 'loading'\nx = x.cuda(async=True)\n"
    res = process_bytes(data, "p2.py", RULES, Options(fix=True))
    assert not res.crashed and res.new_source is None
    assert [f.code for f in res.findings] == ["AD000"]


def test_mask_keeps_length_and_parses():
    src = "y = f(a,\n      async = True)\nasync def g(): pass\n"
    masked = AsyncKeyword.mask_text(src)
    assert len(masked) == len(src) and masked != src
    assert masked.splitlines()[2] == "async def g(): pass"
    cst.parse_module(masked)
    assert "async" not in masked.splitlines()[1]


def test_def_parameter_named_async_is_left_to_the_parser():
    src = "def load(x, async=False):\n    return x\n"
    assert AsyncKeyword(None).check_text(src) == []
    assert AsyncKeyword.mask_text(src) == src
