"""Which name is bound where, in which scope, to what; and which binding
each read sees, by Python's scoping rules.

Scopes: module, class, function, lambda, comprehension. Class bodies do not
enclose the functions (or comprehensions) inside them; `global`/`nonlocal`
move a function's bindings to the scope they name; a comprehension's
targets stay in the comprehension, its walrus targets do not; defaults,
decorators, annotations and a comprehension's first iterable are evaluated
outside the scope they belong to. Attribute targets (`self.h = ...`) are
kept per scope under their dotted name, for the rules that follow them."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from ..imports import dotted
from .walk import children

_COMPS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_FOLDS = ("AddAssign", "MultiplyAssign", "FloorDivideAssign")


@dataclass(eq=False)
class Scope:
    kind: str  # module | class | function | lambda | comprehension
    node: cst.CSTNode
    parent: Optional["Scope"]
    names: dict = field(default_factory=dict)  # name -> [Binding] owned here
    attrs: dict = field(default_factory=dict)  # "self.h" -> [Binding] made here
    globals: set = field(default_factory=set)
    nonlocals: set = field(default_factory=set)
    star_import: bool = False

    def enclosing(self) -> Optional["Scope"]:
        """The scope a free name is looked up in next: class bodies are skipped."""
        outer = self.parent
        while outer is not None and outer.kind == "class":
            outer = outer.parent
        return outer


@dataclass(eq=False)
class Binding:
    name: str  # a plain name, or the dotted key of an attribute target
    # assign | augassign | annotation | walrus | for | comp | with | except |
    # param | import | def | class | del
    kind: str
    node: cst.CSTNode  # the statement or clause that binds (Assign, For, Param, ...)
    target: cst.CSTNode  # the Name (or Attribute) bound
    # right-hand side, iterable, with item; a parameter's annotation; the imported name
    value: Optional[cst.CSTNode] = None
    path: Optional[tuple] = ()  # where in a tuple target: () the whole value; None after a star
    scope: Optional[Scope] = None  # where the binding runs (not always the owner)
    op: str = ""  # augassign: the operator's class name (AddAssign ...)

    def element(self) -> Optional[cst.CSTNode]:
        """The part of `value` this target receives when literal tuples line
        up (`n, total = 0, 0`); the value itself for a plain target; else None."""
        if self.path is None or self.value is None:
            return None
        return part_at(self.value, self.path)


def part_at(value, path: tuple) -> Optional[cst.CSTNode]:
    """The part of a literal `value` at a tuple target's `path` (`(a, (b, c))`
    gives `c` the path (1, 1)); None where the literals do not line up."""
    part = value
    for i in path:
        if not isinstance(part, (cst.Tuple, cst.List)) or i >= len(part.elements) or any(
                isinstance(e, cst.StarredElement) for e in part.elements):
            return None
        part = part.elements[i].value
    return part


class Bindings:
    def __init__(self, module: cst.Module, parent=None) -> None:
        self._parent = parent  # ctx.parent: a node -> its parent (asked by scope_of only)
        self.module = Scope("module", module, None)
        self.scopes: dict = {module: self.module}  # scope node -> Scope
        self.reads: list = []  # (Name, Scope) for every name read
        self._at: dict = {}  # Name node -> Scope it is evaluated in
        self._pending: list = []  # (Binding, owner decided at the end)
        self._by_name: Optional[dict] = None  # name -> reads, built on first use (reads_named)
        _Builder(self).run(module)
        for binding in self._pending:
            self._owner(binding.name, binding.scope).names.setdefault(binding.name, []).append(binding)
        self._pending = []

    def release(self) -> None:
        """Break the scope <-> binding cycles (a binding names its scope), so
        that the pass's tree they hold is freed without the cyclic collector."""
        for scope in self.scopes.values():
            scope.names.clear()
            scope.attrs.clear()

    # --- queries -------------------------------------------------------------
    def scope_of(self, node) -> Scope:
        """The scope `node` is evaluated in."""
        known = self._at.get(node)
        if known is not None:
            return known
        path = [node]
        cur = self._parent(node)
        while cur is not None:
            scope = self.scopes.get(cur)
            if scope is not None and _inside(cur, path):
                return scope
            path.append(cur)
            cur = self._parent(cur)
        return self.module

    def owner(self, name: str, scope: Scope) -> Optional[Scope]:
        """The scope whose binding of `name` a read in `scope` sees; None when
        no scope binds it (a builtin, a star import, a typo)."""
        current = scope
        first = True
        while current is not None:
            if name in current.globals:
                return self.module
            if name in current.nonlocals:
                first = False
                current = current.enclosing()
                continue
            if name in current.names and (first or current.kind != "class"):
                return current
            first = False
            current = current.enclosing() if current.kind != "module" else None
        return None

    def resolve(self, name: str, scope: Scope) -> tuple:
        """(owner scope, its bindings of `name`); (None, []) when unbound."""
        home = self.owner(name, scope)
        return (home, home.names[name]) if home is not None else (None, [])

    def lookup(self, node: cst.Name) -> tuple:
        return self.resolve(node.value, self.scope_of(node))

    def values(self, node: cst.Name) -> Optional[list]:
        """What the name read at `node` may hold, flow-insensitively: the
        right-hand side of every `name = value` (or walrus) its owner scope
        makes, and the operand of each `+=`, `*=`, `//=` (their result is
        built from both operands alike); `/=` adds nothing (callers ask what
        was divided). None when a binding is anything else (a parameter, a
        loop or tuple target, an import, `-=`) or the owner is not the read's
        own code block (a global or closure name is not followed)."""
        scope = self.scope_of(node)
        owner, found = self.resolve(node.value, scope)
        if owner is None or owner is not self.code_block(scope):
            return None
        out = []
        for binding in found:
            if binding.kind == "augassign" and binding.op == "DivideAssign":
                continue
            if (binding.kind in ("assign", "walrus") and binding.path == ()) or \
                    (binding.kind == "augassign" and binding.op in _FOLDS):
                out.append(binding.value)
            else:
                return None
        return out

    def local(self, scope: Scope, name: str) -> list:
        return scope.names.get(name, [])

    def declared(self, scope: Scope, name: str) -> bool:
        """`global name` / `nonlocal name` in this scope."""
        return name in scope.globals or name in scope.nonlocals

    def code_block(self, scope: Scope) -> Scope:
        """The nearest function or the module: what runs when `scope` runs."""
        while scope.kind not in ("function", "module"):
            scope = scope.parent
        return scope

    def attrs(self, key: str, scopes=None) -> list:
        """Attribute bindings of `key` made in `scopes` (every scope by default)."""
        out = []
        for scope in (scopes if scopes is not None else self.scopes.values()):
            out.extend(scope.attrs.get(key, ()))
        return out

    def methods(self, cls: Scope) -> list:
        return [s for s in self.scopes.values() if s.parent is cls and s.kind == "function"]

    def reads_named(self, name: str) -> list:
        """(Name, scope) for every read of `name`, whichever binding it sees."""
        by_name = self._by_name
        if by_name is None:
            by_name = self._by_name = {}
            for name_node, scope in self.reads:
                by_name.setdefault(name_node.value, []).append((name_node, scope))
        return by_name.get(name, [])

    def reads_of(self, owner: Scope, name: str) -> list:
        """Every Name read that sees `owner`'s binding of `name`."""
        return [n for n, s in self.reads_named(name) if self.owner(name, s) is owner]

    def _owner(self, name: str, scope: Scope) -> Scope:
        """Where a binding made in `scope` lands."""
        if name in scope.globals:
            return self.module
        if name in scope.nonlocals:
            outer = scope.enclosing()
            while outer is not None and outer.kind != "module":
                if name in outer.names or any(b.name == name and b.scope is outer for b in self._pending):
                    return outer
                outer = outer.enclosing()
        return scope


def target_names(target) -> list:
    """The names an assignment or loop target binds (`a, (b, *c)` -> a, b, c)."""
    if type(target) is cst.Name:
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for elem in target.elements for name in target_names(elem.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


def _inside(scope_node, path: list) -> bool:
    """Whether the node at path[0], reached through path[-1] (a child of
    `scope_node`), is evaluated inside that scope."""
    child = path[-1]
    if isinstance(scope_node, (cst.FunctionDef, cst.ClassDef)):
        if child is scope_node.body:
            return True
        if isinstance(scope_node, cst.FunctionDef) and child is scope_node.params:
            return len(path) >= 2 and isinstance(path[-2], cst.Param) and (
                len(path) == 2 or path[-3] is path[-2].name)
        return False
    if isinstance(scope_node, cst.Lambda):
        if child is scope_node.body:
            return True
        return len(path) >= 3 and isinstance(path[-2], cst.Param) and path[-3] is path[-2].name
    if isinstance(scope_node, _COMPS):
        return not (child is scope_node.for_in and len(path) >= 2 and path[-2] is scope_node.for_in.iter)
    return True


class _Builder:
    def __init__(self, model: Bindings) -> None:
        self.bindings = model
        self.stack: list = []  # (node, scope) still to walk

    def run(self, module) -> None:
        stack = self.stack = [(child, self.bindings.module) for child in reversed(children(module))]
        while stack:
            node, scope = stack.pop()
            handler = _HANDLERS.get(type(node))
            if handler is not None:
                handler(self, node, scope)
            elif type(node) is cst.Name:
                self.bindings.reads.append((node, scope))
                self.bindings._at[node] = scope
            else:
                self.push(children(node), scope)

    def push(self, nodes, scope) -> None:
        self.stack.extend((n, scope) for n in reversed([n for n in nodes if n is not None]))

    def new(self, kind, node, parent) -> Scope:
        scope = Scope(kind, node, parent)
        self.bindings.scopes[node] = scope
        return scope

    # --- binding ---------------------------------------------------------------
    def bind(self, target, kind, node, scope, value=None, path=(), op="") -> None:
        if type(target) is cst.Name:
            self.bindings._at[target] = scope
            self.bindings._pending.append(Binding(target.value, kind, node, target, value, path, scope, op))
        elif type(target) in (cst.Tuple, cst.List):
            for i, elem in enumerate(target.elements):
                star = type(elem) is cst.StarredElement
                sub = None if path is None or star else path + (i,)
                self.bind(elem.value, kind, node, scope, value, sub, op)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, kind, node, scope, value, None, op)
        elif isinstance(target, cst.Attribute):
            key = dotted(target)
            if key:
                scope.attrs.setdefault(key, []).append(Binding(key, kind, node, target, value, path, scope, op))
            self.push([target.value], scope)
        else:  # x[i] = ...: reads x
            self.push([target], scope)

    def function(self, node: cst.FunctionDef, scope) -> None:
        self.bind(node.name, "def", node, scope)
        inner = self.new("function", node, scope)
        self.params(node.params, node, inner, scope)
        self.push([deco.decorator for deco in node.decorators], scope)
        if node.returns is not None:
            self.push([node.returns.annotation], scope)
        self.push([node.body], inner)

    def params(self, params: cst.Parameters, node, inner, outer) -> None:
        star = [params.star_arg] if type(params.star_arg) is cst.Param else []
        kwargs = [params.star_kwarg] if params.star_kwarg is not None else []
        for param in [*params.posonly_params, *params.params, *star, *params.kwonly_params, *kwargs]:
            ann = param.annotation.annotation if param.annotation is not None else None
            self.bind(param.name, "param", param, inner, ann)
            self.push([ann, param.default], outer)

    def lambda_(self, node: cst.Lambda, scope) -> None:
        inner = self.new("lambda", node, scope)
        self.params(node.params, node, inner, scope)
        self.push([node.body], inner)

    def class_(self, node: cst.ClassDef, scope) -> None:
        self.bind(node.name, "class", node, scope)
        inner = self.new("class", node, scope)
        self.push([deco.decorator for deco in node.decorators] + [base.value for base in (*node.bases, *node.keywords)],
                  scope)
        self.push([node.body], inner)

    def comprehension(self, node, scope) -> None:
        inner = self.new("comprehension", node, scope)
        for_in = node.for_in
        self.push([for_in.iter], scope)
        parts = []
        while for_in is not None:
            self.bind(for_in.target, "comp", for_in, inner, for_in.iter)
            if for_in is not node.for_in:
                parts.append(for_in.iter)
            parts.extend(i.test for i in for_in.ifs)
            for_in = for_in.inner_for_in
        elt = [node.key, node.value] if isinstance(node, cst.DictComp) else [node.elt]
        self.push(parts + elt, inner)

    def assign(self, node: cst.Assign, scope) -> None:
        self.push([node.value], scope)
        for target in node.targets:
            self.bind(target.target, "assign", node, scope, node.value)

    def ann_assign(self, node: cst.AnnAssign, scope) -> None:
        self.push([node.annotation.annotation, node.value], scope)
        if node.value is None:
            self.bind(node.target, "annotation", node, scope, node.annotation.annotation, None)
        else:
            self.bind(node.target, "assign", node, scope, node.value)

    def aug_assign(self, node: cst.AugAssign, scope) -> None:
        self.push([node.value], scope)
        if isinstance(node.target, cst.Name):
            self.bindings.reads.append((node.target, scope))
        self.bind(node.target, "augassign", node, scope, node.value, op=type(node.operator).__name__)

    def walrus(self, node: cst.NamedExpr, scope) -> None:
        self.push([node.value], scope)
        home = scope
        while home.kind == "comprehension":
            home = home.parent
        self.bind(node.target, "walrus", node, home, node.value)

    def for_(self, node, scope) -> None:
        self.push([node.iter, node.body, node.orelse], scope)
        self.bind(node.target, "for", node, scope, node.iter)

    def with_item(self, node: cst.WithItem, scope) -> None:
        self.push([node.item], scope)
        if node.asname is not None:
            self.bind(node.asname.name, "with", node, scope, node.item)

    def except_(self, node, scope) -> None:
        self.push([node.type, node.body], scope)
        if node.name is not None:
            self.bind(node.name.name, "except", node, scope, node.type)

    def import_(self, node, scope) -> None:
        if type(node.names) is cst.ImportStar:
            scope.star_import = True
            return
        for alias in node.names:
            if alias.asname is not None:
                self.bind(alias.asname.name, "import", node, scope, alias.name)
            else:
                head = alias.name
                while isinstance(head, cst.Attribute):  # `import a.b` binds `a`
                    head = head.value
                self.bind(head, "import", node, scope, alias.name)

    def global_(self, node, scope) -> None:
        names = scope.globals if isinstance(node, cst.Global) else scope.nonlocals
        names.update(n.name.value for n in node.names)

    def delete(self, node: cst.Del, scope) -> None:
        self.bind(node.target, "del", node, scope)

    def attribute(self, node: cst.Attribute, scope) -> None:
        self.push([node.value], scope)  # `.attr` is no read of a name

    def arg(self, node: cst.Arg, scope) -> None:
        self.push([node.value], scope)  # nor is a keyword


_HANDLERS = {
    cst.FunctionDef: _Builder.function, cst.Lambda: _Builder.lambda_, cst.ClassDef: _Builder.class_,
    cst.ListComp: _Builder.comprehension, cst.SetComp: _Builder.comprehension,
    cst.GeneratorExp: _Builder.comprehension, cst.DictComp: _Builder.comprehension,
    cst.Assign: _Builder.assign, cst.AnnAssign: _Builder.ann_assign, cst.AugAssign: _Builder.aug_assign,
    cst.NamedExpr: _Builder.walrus, cst.For: _Builder.for_, cst.WithItem: _Builder.with_item,
    cst.ExceptHandler: _Builder.except_, cst.ExceptStarHandler: _Builder.except_,
    cst.Import: _Builder.import_, cst.ImportFrom: _Builder.import_,
    cst.Global: _Builder.global_, cst.Nonlocal: _Builder.global_, cst.Del: _Builder.delete,
    cst.Attribute: _Builder.attribute, cst.Arg: _Builder.arg,
}
