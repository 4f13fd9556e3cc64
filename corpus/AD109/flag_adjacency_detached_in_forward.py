# expect-before: runs
# A graph-convolution classifier (ML-GCN/A-GCN style) learns its label
# adjacency with a small block (`self.adjacency`), then detaches the
# normalised adjacency before the graph convolutions use it. The class hands
# `self.adjacency.parameters()` to the optimizer in a parameter group of its
# own, but every path from it to forward's outputs ends at the `.detach()`:
# it is stepped and never learns, silently.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def normalise(adj):
    degree = adj.sum(1).clamp(min=1e-6).pow(-0.5)
    return degree.unsqueeze(1) * adj * degree.unsqueeze(0)


class GraphConvolution(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_in, d_out) * 0.1)

    def forward(self, x, adj):
        return adj @ (x @ self.weight)


class LabelGCN(nn.Module):
    def __init__(self, n_labels=5, d_word=6, d_feat=8):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(10, d_feat), nn.ReLU())
        self.adjacency = nn.Linear(d_word, d_word)
        self.gc1 = GraphConvolution(d_word, 12)
        self.gc2 = GraphConvolution(12, d_feat)

    def forward(self, x, words):
        feature = self.features(x)
        emb = self.adjacency(words)
        adj = torch.sigmoid(emb @ emb.t()) + torch.eye(words.shape[0])
        adj = normalise(adj).detach()
        h = torch.relu(self.gc1(words, adj))
        h = self.gc2(h, adj)
        return feature @ h.t(), adj

    def get_config_optim(self, lr):
        return [
            {"params": self.features.parameters(), "lr": lr},
            {"params": self.adjacency.parameters(), "lr": lr},
            {"params": self.gc1.parameters(), "lr": lr},
            {"params": self.gc2.parameters(), "lr": lr},
        ]


if __name__ == "__main__":
    torch.manual_seed(0)
    model = LabelGCN()
    optimizer = torch.optim.SGD(model.get_config_optim(0.1), lr=0.1)
    words = torch.randn(5, 6)
    before = model.adjacency.weight.detach().clone()
    for step in range(ITERS):
        x, y = torch.randn(16, 10), (torch.rand(16, 5) > 0.5).float()
        scores, adj = model(x, words)
        loss = nn.functional.binary_cross_entropy_with_logits(scores, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"{step} loss {loss.item():.6f}")
    print(f"adjacency moved {(model.adjacency.weight - before).abs().sum().item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
