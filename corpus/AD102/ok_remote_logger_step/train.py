# expect-before: runs
# A scalar logger whose callers live in another file (agent.py): `log_scalar`
# appends the value it is given to a list kept in `self._data`, for the whole
# run. The agent's training step logs `loss.item()`, a number, so the logger
# keeps no graph.
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
