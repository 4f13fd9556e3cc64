import torch
import torch.nn as nn
import torch.nn.functional as F


class CosineClassifier(nn.Module):
    def __init__(self, d=8, k=4):
        super().__init__()
        self.proto = nn.Parameter(torch.randn(k, d))
        self.feat = nn.Linear(d, d)


def main():
    torch.manual_seed(0)
    model = CosineClassifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    protos = F.normalize(model.proto, dim=1)
    for step in range(5):
        x, y = torch.randn(10, 8), torch.randint(0, 4, (10,))
        logits = F.normalize(model.feat(x), dim=1) @ protos.t() * 10
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(loss.item())


if __name__ == "__main__":
    main()
