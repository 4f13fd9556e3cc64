# expect-before: runs
# autodetach-test: unsafe
# An evaluation script with no training in it. `Evaluator.play` threads the
# LSTM state through `self.act(obs, state)`, which goes through another method
# of the object (`self._advance`) to the policy network built in `__init__`
# from `RecurrentPolicy` of nets.py, and hands back a number and the new
# state. `main()` calls `play` with gradients on and nothing ever backwards
# what it computes: each step's state hangs from every earlier step's graph
# and the whole episode's activations stay alive until it ends. That the
# network has trainable parameters is inferred from its being built from a
# class, so the fix (the step under no_grad) is unsafe.
import os

import torch

from nets import RecurrentPolicy

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Evaluator:
    def __init__(self, n_obs=5, n_hidden=12, n_act=3):
        self.policy = RecurrentPolicy(n_obs, n_hidden, n_act)
        self.policy.eval()
        self.n_obs = n_obs

    def _advance(self, obs, state):
        logits, state = self.policy(obs, state)
        return logits, state

    def act(self, obs, state):
        logits, next_state = self._advance(obs, state)
        return int(logits.argmax(-1)), next_state

    def play(self, max_steps):
        state = self.policy.initial()
        obs = torch.randn(1, self.n_obs)
        steps, score = 0, 0.0
        while steps < max_steps:
            with torch.no_grad():
                action, state = self.act(obs, state)
            obs = torch.roll(obs, action) * 0.9
            score += float(obs.sum())
            steps += 1
        return score / max_steps


def main():
    evaluator = Evaluator()
    score = evaluator.play(ITERS * 5)
    print(f"mean score {score:.6f}")


main()
