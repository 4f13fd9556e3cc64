"""grad_helpers: a `with helper():` counts as no_grad only where the helper's answer cannot be otherwise on
today's torch."""
import textwrap

import libcst as cst

from autodetach.analysis.flow import grad_mode
from autodetach.imports import ImportTable

HEAD = "import contextlib\nimport torch\n"


def _helpers(src):
    module = cst.parse_module(HEAD + textwrap.dedent(src))
    table = ImportTable.from_module(module)
    return table.no_grad_helpers(), table


def test_version_chosen_fallback_counts():
    found, table = _helpers("""
        def ctx():
            if float(torch.__version__[0:3]) >= 0.4:
                return torch.no_grad()
            return contextlib.suppress()
    """)
    assert found == {"ctx"}
    assert grad_mode(cst.parse_expression("ctx()"), table) == 1


def test_always_no_grad_counts():
    assert _helpers("def ctx():\n    return torch.inference_mode()\n")[0] == {"ctx"}


def test_flag_chosen_fallback_does_not_count():
    assert not _helpers("""
        FREEZE = False
        def ctx():
            if FREEZE:
                return torch.no_grad()
            return contextlib.suppress()
    """)[0]


def test_parameter_or_other_context_does_not_count():
    found, table = _helpers("""
        def ctx(train):
            return contextlib.nullcontext() if train else torch.no_grad()
        def other():
            if torch.__version__ < "1":
                return torch.no_grad()
            return torch.enable_grad()
    """)
    assert not found
    assert grad_mode(cst.parse_expression("ctx()"), table) == 0
