# expect-before: error modified by an inplace operation
# A slot-filling trainer (the shape of a BiLSTM tagger plus a slot-name
# predictor): one optimizer over both models, its parameter groups chosen in
# an if/else. `train_step` runs the tagger once, backwards the tagging loss
# with retain_graph=True and steps, which updates the tagger's weights in
# place; the predictor then reads the tagger's hidden states of that same
# forward, and each per-sample loss in the loop walks the tagger weights saved
# before the step. Which parameters the optimizer owns is read from the
# backward it applies; the fix (one step after all the losses, or a new
# tagger forward) is for a human.
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
        loss_bin.backward(retain_graph=True)
        self.optimizer.step()

        pred_list, gold_list = self.predictor(hiddens, y_slot)
        for pred, gold in zip(pred_list, gold_list):
            loss_slot = self.loss_fn(pred, gold)
            self.optimizer.zero_grad()
            loss_slot.backward(retain_graph=True)
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
