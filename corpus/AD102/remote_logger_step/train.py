# expect-before: runs
# autodetach-test: unsafe
# A scalar logger whose callers live in another file (agent.py): `log_scalar`
# appends the value it is given to a list kept in `self._data`, for the whole
# run. The agent's training step (one call per batch; its loop is the caller's)
# logs the loss tensor itself, which `loss.backward()` there shows to carry a
# graph, so every step's graph stays alive. The finding is here, where one
# `.detach()` serves every caller; what the callers pass is inferred from
# another file, so the fix is unsafe.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class ScalarLogger:
    def __init__(self):
        self._data = {}

    def log_scalar(self, name, value, step):
        if name not in self._data:
            self._data[name] = [[], []]
        self._data[name][0].append(value)
        self._data[name][1].append(step)

    def last(self, name):
        return float(self._data[name][0][-1])


if __name__ == "__main__":
    from agent import run

    torch.manual_seed(0)
    run(ITERS, ScalarLogger())
