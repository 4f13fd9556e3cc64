import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class SkipGram(nn.Module):
    """Node embeddings trained on random walks over a ring graph."""

    def __init__(self, num_nodes, dim, walk_length=4):
        super().__init__()
        self.embedding = nn.Embedding(num_nodes, dim)
        self.num_nodes = num_nodes
        self.walk_length = walk_length

    def forward(self, batch=None):
        return self.embedding.weight if batch is None else self.embedding(batch)

    def _sample(self, starts):
        starts = torch.as_tensor(starts)
        steps = torch.randint(0, 2, (starts.numel(), self.walk_length - 1)) * 2 - 1
        walk = torch.cat([starts[:, None], starts[:, None] + steps.cumsum(1)], 1) % self.num_nodes
        neg = torch.randint(0, self.num_nodes, walk.shape)
        return walk, neg

    def loader(self, **kwargs):
        return DataLoader(range(self.num_nodes), collate_fn=self._sample, **kwargs)

    def loss(self, pos, neg):
        h_pos = self.embedding(pos)
        h_neg = self.embedding(neg)
        pos_score = (h_pos[:, :1] * h_pos[:, 1:]).sum(-1)
        neg_score = (h_neg[:, :1] * h_neg[:, 1:]).sum(-1)
        return -torch.log(torch.sigmoid(pos_score) + 1e-7).mean() - torch.log(torch.sigmoid(-neg_score) + 1e-7).mean()
