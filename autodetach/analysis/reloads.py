"""`net.load_state_dict(saved)` as an in-place update of `net`'s parameters.

`load_state_dict` copies the saved tensors into the parameters under
`torch.no_grad()` (`param.copy_(saved)`), which bumps their version like an
optimizer step does: a graph built from `net` before it and backwarded after
it fails with "modified by an inplace operation". Meta-learning code does it
once per task (`for task in tasks: batch_loss += adapt(net, task);
net.load_state_dict(start)`, then `batch_loss.backward()`). flow.py records
the call as a `reload` event; stale.py treats it as a step of that module.

A helper walked at its call (`def adapt(model, ...)`, called `adapt(net,
...)`) names the caller's module by its parameter: `handed_modules` maps the
parameter back, when the file hands it exactly one module."""
from __future__ import annotations


def reloads(analysis, event, module) -> bool:
    """Does the reload `event` overwrite parameters that `module` uses?"""
    return any(m == base or m.startswith(base + ".") for base in event.modules or ()
               for m in [module, *callers_module(analysis, module)])


def callers_module(analysis, module) -> list:
    """The caller's module a helper's parameter `module` stands for, when every
    walked call of the helpers hands that parameter the same one; else []."""
    given = analysis.table("handed_modules").get(module)
    return sorted(given) if given and len(given) == 1 and module not in given else []
