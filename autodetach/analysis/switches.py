"""Early returns that hand an argument back while a setting of the object turns
the method off. A pool of past samples (CycleGAN's `ImagePool.query`):

    def query(self, images):
        if self.pool_size == 0:
            return images
        for image in images.data:
            ...
        return torch.cat(picked, 0)

returns copies built from `.data`, except when the pool is disabled. The
summaries (arg_flow) count such a method as cutting its argument: the setting
is taken to be on, an inference about configuration the code does not show."""
from __future__ import annotations

import ast


def switch_exits(fn, params) -> dict:
    """id of the returned Name -> parameter, for each `if <test on self alone>:
    return param` among the top statements of `fn`, when other returns follow."""
    others = [node for node in ast.walk(fn) if isinstance(node, ast.Return) and node.value is not None]
    out = {}
    for stmt in fn.body:
        if not isinstance(stmt, ast.If) or stmt.orelse or len(stmt.body) != 1:
            continue
        ret = stmt.body[0]
        if not isinstance(ret, ast.Return) or not isinstance(ret.value, ast.Name) or ret.value.id not in params:
            continue
        if {node.id for node in ast.walk(stmt.test) if isinstance(node, ast.Name)} != {"self"}:
            continue  # a test on a tensor, an argument or chance: not a setting
        if any(isinstance(node, ast.Attribute) and node.attr == "training" for node in ast.walk(stmt.test)):
            continue  # `if self.training: return x`: the mode a training loop runs in, not a switch left on
        if any(other is not ret for other in others):
            out[id(ret.value)] = ret.value.id
    return out
