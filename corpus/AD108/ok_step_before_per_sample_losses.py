# expect-before: runs
# The trainer of flag_step_before_per_sample_losses.py done right: after the
# tagging step the tagger runs again, so the predictor reads hidden states
# computed with the updated weights, and the per-sample losses are summed and
# backwarded once before one step.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, batch_first=True)
        self.out = nn.Linear(8, 3)

    def forward(self, x):
        hiddens, _ = self.lstm(x)
        return self.out(hiddens), hiddens


class Predictor(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)

    def forward(self, hiddens, golds):
        preds = [self.proj(h).mean(0, keepdim=True) for h in hiddens]
        return preds, [g.view(1) for g in golds]


class SLUTrainer:
    def __init__(self, tagger, predictor, extra=None):
        self.tagger = tagger
        self.predictor = predictor
        if extra is not None:
            params = [{"params": tagger.parameters()}, {"params": predictor.parameters()},
                      {"params": extra.parameters()}]
        else:
            params = [{"params": tagger.parameters()}, {"params": predictor.parameters()}]
        self.optimizer = torch.optim.Adam(params, lr=0.01)
        self.loss_fn = nn.CrossEntropyLoss()

    def train_step(self, x, y_bin, y_slot):
        preds, hiddens = self.tagger(x)
        loss_bin = self.loss_fn(preds.reshape(-1, 3), y_bin.reshape(-1))
        self.optimizer.zero_grad()
        loss_bin.backward()
        self.optimizer.step()

        _, hiddens = self.tagger(x)
        pred_list, gold_list = self.predictor(hiddens, y_slot)
        loss_slot = sum(self.loss_fn(pred, gold) for pred, gold in zip(pred_list, gold_list))
        self.optimizer.zero_grad()
        loss_slot.backward()
        self.optimizer.step()
        return loss_bin.item(), loss_slot.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = SLUTrainer(Tagger(), Predictor())
    for step in range(ITERS):
        x = torch.randn(2, 5, 6)
        a, b = trainer.train_step(x, torch.randint(0, 3, (2, 5)), torch.randint(0, 4, (2,)))
        print(step, f"{a:.6f} {b:.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.tagger.parameters()):.6f}")
