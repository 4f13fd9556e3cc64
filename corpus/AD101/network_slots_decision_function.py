# expect-before: runs
# autodetach-test: unsafe
# A detector's scoring pass (`decision_function`) runs the encoder through
# `forward_model` with gradients on and backwards nothing, and copies the
# embeddings the encoder keeps on itself (`self.model.emb`) into slots of
# `self.emb`, made before the loop: each in-place copy hangs `self.emb` from
# that batch's graph and from the previous copies, so every batch's graph stays
# alive until the embeddings are dropped. `fit` backwards what `forward_model`
# returns, which shows it runs the network. That `self.model.emb` holds the
# forward's output with its graph is inferred (the network's class is not read
# here), so the fix is unsafe.
import os
from abc import abstractmethod

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 3)
        self.emb = None

    def forward(self, x):
        self.emb = torch.tanh(self.lin(x))
        return self.emb.sum(1)


class Detector:
    def __init__(self, save_emb=True):
        self.save_emb = save_emb
        self.emb = None
        self.model = None

    @abstractmethod
    def init_model(self):
        """The network."""

    @abstractmethod
    def forward_model(self, batch):
        """Loss and scores of one batch."""

    def fit(self, batches):
        self.model = self.init_model()
        opt = torch.optim.Adam(self.model.parameters(), lr=0.01)
        for batch in batches:
            loss, score = self.forward_model(batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return self

    def decision_function(self, batches, n):
        self.model.eval()
        scores = torch.zeros(n)
        if self.save_emb:
            self.emb = torch.zeros(n, 3)
        for i, batch in enumerate(batches):
            loss, score = self.forward_model(batch)
            idx = torch.arange(i * 4, i * 4 + 4)
            if self.save_emb:
                self.emb[idx] = self.model.emb.cpu()
            scores[idx] = score
        return scores


class Simple(Detector):
    def init_model(self):
        return Encoder()

    def forward_model(self, batch):
        out = self.model(batch)
        score = out.pow(2)
        return score.mean(), score.detach()


batches = [torch.randn(4, 6) for _ in range(ITERS)]
det = Simple().fit(batches)
scores = det.decision_function(batches, 4 * ITERS)
print("%.6f %.6f" % (scores.sum().item(), det.emb.sum().item()))
