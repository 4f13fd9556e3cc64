"""Project helpers (imported by train.py)."""


def to_number(t):
    return t.detach().item()
