"""Elements of a forward's returned tuples that are a parameter handed back as the caller gave
it (`return loss, queue, use_queue` where `use_queue` is only read as a flag): such an element is
the caller's own object and carries only what the caller passed, not the graph of the rest."""
import ast

# parents under which a read cannot change the object or let it escape to code that might
_READS = (ast.BoolOp, ast.Compare, ast.UnaryOp, ast.If, ast.While, ast.IfExp, ast.Assert)


def handed_back(method) -> tuple:
    """(the parameters after `self`, per element of the tuples `method` returns (all of one length):
    the name of the parameter returned there by every return, untouched in the body, else ""); ()
    when there is none."""
    returns = [node.value for node in ast.walk(method) if isinstance(node, ast.Return)]
    if not returns or not all(isinstance(ret, ast.Tuple) for ret in returns) or \
            len({len(ret.elts) for ret in returns}) != 1 or any(isinstance(e, ast.Starred) for ret in returns
                                                                 for e in ret.elts):
        return ()
    if any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
           for stmt in method.body for node in ast.walk(stmt)):
        return ()  # a nested scope may rebind or mutate a parameter out of this reading
    params = tuple(arg.arg for arg in method.args.args[1:])
    out = []
    for index in range(len(returns[0].elts)):
        names = {ret.elts[index].id if isinstance(ret.elts[index], ast.Name) else None for ret in returns}
        name = names.pop() if len(names) == 1 else None
        out.append(name if name in params and _untouched(method, name, returns) else "")
    return (params, tuple(out)) if any(out) else ()


def _untouched(method, name: str, returns: list) -> bool:
    """`name` is never bound, stored into, called on, passed on or aliased: only read as a
    truth value or a comparison, and returned as an element of the returned tuples."""
    parents = {id(child): node for node in ast.walk(method) for child in ast.iter_child_nodes(node)}
    tuples = {id(ret) for ret in returns}
    for node in ast.walk(method):
        if not isinstance(node, ast.Name) or node.id != name:
            continue
        parent = parents.get(id(node))
        if not isinstance(node.ctx, ast.Load):
            return False
        if isinstance(parent, ast.Tuple) and id(parent) in tuples:
            continue
        if not isinstance(parent, _READS):
            return False
    return True
