# LBFGS with a closure; the frozen backbone's features are computed once per
# outer step OUTSIDE the closure, but the backbone is trainable too (one
# optimizer over both). LBFGS calls the closure several times: the second
# call's backward needs the backbone graph the first freed. The retain_graph
# reference keeps it (and accumulates the backbone's gradient through it);
# a detach of the features would stop the backbone learning.
import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    backbone = nn.Linear(8, 16)
    head = nn.Linear(16, 1)
    opt = torch.optim.LBFGS(list(backbone.parameters()) + list(head.parameters()), lr=0.5, max_iter=4)
    for step in range(4):
        x, y = torch.randn(32, 8), torch.randn(32, 1)
        feats = backbone(x)

        def closure():
            opt.zero_grad()
            loss = F.mse_loss(head(torch.tanh(feats)), y)
            loss.backward()
            return loss

        loss = opt.step(closure)
    print(loss.item())


if __name__ == "__main__":
    main()
