# expect-before: runs
# A trainer hands each batch's outputs, with its two prediction lists, to a
# helper of a sibling module that dispatches (with `**options`) to helpers
# that append `.item()` numbers read through `.data`: the lists it hands back
# hold no graph, so nothing is kept from one batch to the next.
import os

import torch
import torch.nn as nn

from metrics import gather

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self, model, task):
        self.model = model
        self.task = task
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        self.criterion = nn.BCEWithLogitsLoss()

    def train_model(self, batches):
        preds, truths = [], []
        epoch_loss = 0.0
        for x, y in batches:
            self.optimizer.zero_grad()
            outputs = self.model(x)
            loss = self.criterion(outputs, y)
            loss.backward()
            self.optimizer.step()
            preds, truths = gather(outputs, y, preds, truths, self.task, cut=0.4)
            epoch_loss += loss.item()
        return epoch_loss, preds, truths


data = [(torch.randn(6, 5), torch.randint(0, 2, (6, 3)).float()) for _ in range(ITERS * 2)]
trainer = Trainer(nn.Linear(5, 3), "multilabel")
total, preds, truths = trainer.train_model(data)
print(f"loss {total:.6f} mean pred {sum(preds) / len(preds):.6f}")
