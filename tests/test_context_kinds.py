"""FileContext's ancestor walks keep isinstance's answers per node type: the
same nodes as a plain isinstance walk, for concrete and abstract kinds."""
import glob
import os

import libcst as cst

from autodetach.analysis.frozen import _holder
from autodetach.analysis.walk import nodes
from autodetach.context import FileContext, _is

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = [cst.FunctionDef, (cst.FunctionDef, cst.ClassDef), (cst.For, cst.While), cst.BaseCompoundStatement,
         (cst.SimpleStatementLine, cst.BaseCompoundStatement), cst.BaseExpression, cst.Lambda]


def _files():
    files = [os.path.join(ROOT, "corpus", "migration", "train_mnist_03.py")] + \
        sorted(glob.glob(os.path.join(ROOT, "corpus", "migration", "word_lm_03", "*.py")))
    assert len(files) > 1
    return files


def _plain_enclosing(ctx, node, kinds, stop=()):
    cur = ctx.parent(node)
    while cur is not None:
        if isinstance(cur, kinds):
            return cur
        if isinstance(cur, stop):
            return None
        cur = ctx.parent(cur)
    return None


def _plain_holder(module, stmt):
    for cls in nodes(module):
        if isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock):
            for fn in cls.body.body:
                if isinstance(fn, cst.FunctionDef) and any(n is stmt for n in nodes(fn)):
                    return cls, fn
    return None, None


def test_enclosing_and_holder_agree_with_isinstance():
    checked = found = 0
    for path in _files():
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        module = cst.parse_module(text)
        ctx = FileContext(module, path, text)
        for i, node in enumerate(nodes(module)):
            for kinds in KINDS:
                assert _is(node, kinds) == isinstance(node, kinds)
                got = ctx.enclosing(node, kinds, stop=cst.ClassDef)
                assert got is _plain_enclosing(ctx, node, kinds, cst.ClassDef)
                assert ctx.enclosing(node, kinds) is _plain_enclosing(ctx, node, kinds)
                found += got is not None
                checked += 1
            stmt = ctx.statement_of(node)
            assert stmt is None or isinstance(stmt, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
            if i % 5 == 0 and isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                assert _holder(module, node) == _plain_holder(module, node)
    assert checked > 5000 and found > 1000
