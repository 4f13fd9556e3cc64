"""autodetach: find and fix PyTorch code that misuses autograd."""
__version__ = "0.1.0"


def fix_code(source, select=None, unsafe=False, ignore=None):
    """Fix `source` (a str); return (new_source, findings)."""
    from .engine import fix_code as _fix

    return _fix(source, select=select, unsafe=unsafe, ignore=ignore)


def check_code(source, select=None, ignore=None):
    """The findings in `source`, without fixing."""
    from .engine import check_code as _check

    return _check(source, select=select, ignore=ignore)


__all__ = ["__version__", "fix_code", "check_code"]
