"""The read-only walk, parents and positions give exactly what libcst's
own visitors and metadata providers give, on real files."""
import ast
import glob
import os

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from autodetach.analysis import walk
from autodetach.positions import Positions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = sorted(glob.glob(os.path.join(ROOT, "corpus", "**", "*.py"), recursive=True))[::12]
ODD = [
    "x = 1\r\ny = (2 +\r\n     3)\r\n",  # CRLF
    "if a:\n\tb = [1,\n  2]  # c\n\n\n# end",  # tabs, no trailing newline
    "@d\nasync def f(a, /, *b, c=1, **k) -> int:\n    return lambda y: (y if a else -y)\n",
    "class C(B, metaclass=M):\n    'doc'\n    x: int = 1\n",
    "",
]


def _sources():
    for path in FILES:
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
        try:
            ast.parse(text)
        except SyntaxError:  # the 0.3 `async=` cases: not Python 3.7+ at all
            continue
        yield text
    yield from ODD


class _Record(cst.CSTVisitor):
    def __init__(self) -> None:
        self.seen = []

    def on_visit(self, node) -> bool:
        self.seen.append(("visit", id(node)))
        return not isinstance(node, cst.Lambda)  # a skipped subtree still gets its leave

    def on_leave(self, node) -> None:
        self.seen.append(("leave", id(node)))


@pytest.mark.parametrize("src", list(_sources()))
def test_walk_positions_and_parents_match_libcst(src):
    module = cst.parse_module(src)
    ours, theirs = _Record(), _Record()
    walk.visit(module, ours)
    module.visit(theirs)
    assert ours.seen == theirs.seen
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    assert walk.parents(module) == dict(wrapper.resolve(ParentNodeProvider))
    expected = wrapper.resolve(PositionProvider)
    got = Positions(module)
    assert all(got[n] == expected[n] for n in [module, *walk.parents(module)])


def _plain_visitor():
    """A visitor with visit_/leave_ methods for every non-trivia node type
    (the path that skips whitespace and punctuation)."""
    names = [n for n in dir(cst) if isinstance(getattr(cst, n), type) and issubclass(getattr(cst, n), cst.CSTNode)
             and not issubclass(getattr(cst, n), walk._TRIVIA_TYPES)]
    ns = {"__init__": lambda self: setattr(self, "seen", [])}
    for n in names:
        ns["visit_" + n] = (lambda n: lambda self, node: self.seen.append(("visit", id(node))) or n != "Lambda")(n)
        ns["leave_" + n] = (lambda n: lambda self, node: self.seen.append(("leave", id(node))))(n)
    return type("Plain", (cst.CSTVisitor,), ns)


PLAIN = _plain_visitor()


@pytest.mark.parametrize("src", list(_sources()))
def test_plain_visitor_skips_only_trivia(src):
    module = cst.parse_module(src)
    assert walk._plain(PLAIN, walk._own_hooks(PLAIN))
    ours, theirs = PLAIN(), PLAIN()
    walk.visit(module, ours)
    module.visit(theirs)
    assert ours.seen == theirs.seen
    # Every node in a field the plain walk skips is of a trivia type.
    stack = [(module, False)]
    while stack:
        node, skipped = stack.pop()
        assert not skipped or isinstance(node, walk._TRIVIA_TYPES), type(node).__name__
        kept = {id(k) for k in walk.children(node)}
        stack.extend((k, skipped or id(k) not in kept) for k in walk.all_children(node))


def test_concrete_node_types_have_no_subclasses():
    # The analysis's per-node loops test `type(n) is cst.Call` (isinstance
    # on libcst's ABC-based classes is slow): the same answer only while no
    # concrete node class is subclassed.
    import inspect

    concrete = [c for n, c in vars(cst).items() if inspect.isclass(c) and issubclass(c, cst.CSTNode)
                and not inspect.isabstract(c) and not n.startswith("Base")]
    assert cst.Call in concrete and cst.Assign in concrete and cst.FunctionDef in concrete
    assert [c.__name__ for c in concrete if c.__subclasses__()] == []


@pytest.mark.parametrize("src", list(_sources()))
def test_of_types_is_the_walk_filtered(src):
    # build_names and the optimizer passes loop over these lists instead of
    # walking the file: the same nodes in the same order, kept while they live.
    module = cst.parse_module(src)
    types = frozenset({cst.Call, cst.Assign, cst.For, cst.FunctionDef})
    seen = []
    walk.walk(module, lambda n: seen.append(n) if type(n) in types else None)
    got = walk.of_types(module, types)
    assert [id(n) for n in got] == [id(n) for n in seen]
    assert walk.of_types(module, types) is got
    names = [n for n in walk.nodes(module) if type(n) is cst.Name]
    assert [id(n) for n in walk.of_types(module, frozenset({cst.Name}))] == [id(n) for n in names]


SKIPS = [(cst.FunctionDef, cst.ClassDef, cst.Lambda), (cst.FunctionDef,), (cst.BaseCompoundStatement,),
         (cst.BaseExpression,)]


@pytest.mark.parametrize("src", list(_sources()))
def test_skipping_lists_are_cut_from_the_module_list(src):
    # nodes(n, skip=...) of a node of the listed module: the runs between the
    # skipped subtrees of the module's list, the walk's nodes in its order
    # (a skipped type at the top is listed, as the walk lists it).
    module = cst.parse_module(src)
    walk.forget()
    listed = walk.nodes(module)
    for node in listed[::5]:
        for skip in SKIPS:
            seen = []
            walk.walk(node, seen.append, skip=skip)
            got = walk._slice_skipping(node, skip)
            assert got is not None and [id(n) for n in got] == [id(n) for n in seen]
    assert walk._slice_skipping(cst.parse_module("x = 1\n"), SKIPS[0]) is None  # not the listed module


@pytest.mark.parametrize("src", list(_sources()))
def test_next_pass_module_list_reuses_kept_statements(src):
    # A fix pass's module keeps the statements its fixes left alone: their
    # runs come from the last module's list, the new ones are walked.
    module = cst.parse_module(src)
    walk.forget()
    walk.nodes(module)
    walk._slice(module)  # its indexes, made by the first listing cut from it
    new = module.with_changes(body=[cst.parse_statement("y = f(x)\n"), *module.body[1:],
                                    cst.parse_statement("def g(a):\n    return a\n")])
    seen = []
    walk.walk(new, seen.append)
    assert walk._from_last(new) is not None
    assert [id(n) for n in walk.nodes(new)] == [id(n) for n in seen]


@pytest.mark.parametrize("src", list(_sources()))
def test_content_parents_agree_with_parents(src):
    # eval_loops climbs from calls through this table instead of the full one.
    module = cst.parse_module(src)
    full = walk.parents(module)
    got = walk.content_parents(module)
    below = walk.nodes(module)[1:]
    assert len(got) == len(below)
    assert all(got[id(n)] is full[n] for n in below)
    assert walk.content_parents(module) is got
    # FileContext.parent answers a non-trivia node from this table
    assert all(id(n) in got for n in full if not walk.is_trivia(n))


def test_collect_reads_only_the_node_types_build_names_hands_it():
    """names.build_names walks only the node types in its list (walk.of_types): a type that
    model_containers.collect starts to read must be in COLLECTED, or its facts are silently lost."""
    import inspect
    import re

    from autodetach.analysis import model_containers, names

    read = set(re.findall(r"node_type is cst\.(\w+)", inspect.getsource(model_containers.collect)))
    assert read and read <= {t.__name__ for t in model_containers.COLLECTED}
    assert model_containers.COLLECTED <= names._READ
