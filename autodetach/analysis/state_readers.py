"""Methods that build their result from graphs kept on `self`.

    def store_log_probabilities(self, log_prob):
        self.episode_log_probabilities.append(log_prob)     # once per step of the episode

    def calculate_policy_loss_on_episode(self, total):
        policy_loss = []
        for log_prob in self.episode_log_probabilities:
            policy_loss.append(-log_prob * total)
        return torch.cat(policy_loss).sum()

    def actor_learn(self):
        loss = self.calculate_policy_loss_on_episode(self.episode_return())
        loss.backward()

A method of the walked class with no backward or step of its own is read
from its arguments (`Scope._value_call`): the loss above seemed to hang from
`total`, a number, and not from the log-probabilities the episode kept, so
the backward seemed to reach none of them and the list to keep every step's
graph for nothing (a `.detach()` there stops the policy learning). Such a
method, when it reads a `self.X` that holds a graph at the call, is walked
at the call (`Scope.inline`), so that its result hangs from what it reads.
"""
from __future__ import annotations

import libcst as cst

from ..imports import dotted
from .walk import nodes


def reads_state(scope, own) -> bool:
    """Does `own` (`Scope.plain_self_method`) read a `self.X` whose value at
    the call holds a graph?"""
    memo = scope.analysis.table("_state_reads")
    keys = memo.get(own)
    if keys is None:
        keys = memo[own] = _reads(own)
    env = scope.env
    return any(key in env and env[key].heads for key in keys)


def _reads(own) -> frozenset:
    """The `self.X` the method reads (not those it only binds)."""
    bound = set()
    for node in nodes(own):
        if type(node) is cst.Assign:
            bound.update(id(t.target) for t in node.targets)
        elif type(node) in (cst.AugAssign, cst.AnnAssign):
            bound.add(id(node.target))
    out = set()
    for node in nodes(own):
        if type(node) is cst.Attribute and id(node) not in bound and type(node.value) is cst.Name and \
                node.value.value == "self":
            key = dotted(node)
            if key is not None:
                out.add(key)
    return frozenset(out)
