"""Names annotated as holding text, flags or counts:

    embedding_names: List[str] = []
    for feature_name in config.feature_names:      # config from a module's method
        embedding_names.append(feature_name + "@" + config.name)

A method of a module whose code is not read is taken to hand back its
parameters' graph, and so was every string built from what it returned.
An annotation of `str`, `bytes`, `bool` or `int` (or a container of only
those) says the list holds no tensor. `float` is not trusted: `total: float = 0`
followed by `total += loss` is the very mistake AD102 looks for."""
from __future__ import annotations

import libcst as cst

from ..imports import dotted

_PLAIN = frozenset({"str", "bytes", "bool", "int"})
_GENERIC = frozenset({"List", "list", "Set", "set", "FrozenSet", "frozenset", "Dict", "dict", "Tuple", "tuple",
                      "Sequence", "Iterable", "Optional", "DefaultDict", "defaultdict", "OrderedDict", "Mapping"})


def plain_annotation(ann: cst.Annotation) -> bool:
    return _plain(ann.annotation)


def _plain(node) -> bool:
    if isinstance(node, (cst.Name, cst.Attribute)):
        key = dotted(node)
        return key is not None and key.split(".")[-1] in _PLAIN
    if isinstance(node, cst.Subscript):
        base = dotted(node.value)
        if base is None or base.split(".")[-1] not in _GENERIC:
            return False
        for elem in node.slice:
            part = elem.slice
            if not isinstance(part, cst.Index) or not (_plain(part.value) or _ellipsis(part.value)):
                return False
        return True
    return False


def _ellipsis(node) -> bool:
    return isinstance(node, cst.Ellipsis)
