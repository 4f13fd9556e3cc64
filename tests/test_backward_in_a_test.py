"""A `.backward(...)` call in the test of an `if` (a callback's method whose
result is bound by a walrus, emote's trainer): the statement holding it is a
compound one whose body is a block, not a list of small statements. AD101
raised an internal error (TypeError: 'IndentedBlock' object is not iterable)."""
from autodetach.engine import check_code

SOURCE = '''import torch


class Trainer:
    def __init__(self, callbacks, model):
        self.callbacks = callbacks
        self.model = model
        self.state = {}

    def train(self, batches):
        for batch in batches:
            loss = self.model(batch).sum()
            self.state["loss"] = loss
            for cb in self.callbacks:
                if updated := cb.backward(**self.state):
                    self.state.update(updated)
'''


def test_backward_in_an_if_test_is_no_internal_error():
    findings = check_code(SOURCE, select=["ALL"])
    assert not [f for f in findings if "internal error" in f.message], findings
