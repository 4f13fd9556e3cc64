# expect-before: runs
# A contrastive-predictive-coding trainer (atari-representation-learning's
# CPCTrainer): `self.steps_gen` is a lambda returning a range, called with no
# argument, and `self.labels` is a dict of `torch.arange` targets built once in
# __init__, keyed by its steps. Neither is a network: the labels hold no graph,
# so reusing them in every iteration's loss is correct. The per-step losses are
# summed afresh for each sequence batch and backwarded once.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class CPCTrainer:
    def __init__(self, batch_size=4, seq_len=5, hidden=8):
        self.batch_size, self.sequence_length, self.hidden = batch_size, seq_len, hidden
        self.steps_gen = lambda: range(1, 3)
        self.encoder = nn.Linear(6, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.discriminators = {i: nn.Linear(hidden, hidden) for i in self.steps_gen()}
        self.labels = {i: torch.arange(batch_size * (seq_len - i - 1)) for i in self.steps_gen()}
        params = list(self.encoder.parameters()) + list(self.gru.parameters())
        for disc in self.discriminators.values():
            params += list(disc.parameters())
        self.optimizer = torch.optim.Adam(params, lr=1e-2)

    def do_one_epoch(self, batches):
        step_losses = {i: [] for i in self.steps_gen()}
        for sequence in batches:
            latents = self.encoder(sequence)
            contexts, _ = self.gru(latents)
            loss = 0.
            for i in self.steps_gen():
                predictions = self.discriminators[i](contexts[:, :-(i + 1), :]).reshape(-1, self.hidden)
                targets = latents[:, i + 1:, :].reshape(-1, self.hidden)
                step_loss = F.cross_entropy(predictions @ targets.t(), self.labels[i])
                step_losses[i].append(step_loss.detach().item())
                loss += step_loss
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            print(f"loss {loss.item():.6f}")
        return {i: sum(v) / len(v) for i, v in step_losses.items()}


trainer = CPCTrainer()
data = [torch.randn(4, 5, 6) for _ in range(ITERS)]
means = trainer.do_one_epoch(data)
print(" ".join(f"{i} {v:.6f}" for i, v in sorted(means.items())))
print(f"checksum {sum(p.sum().item() for p in trainer.encoder.parameters()):.6f}")
