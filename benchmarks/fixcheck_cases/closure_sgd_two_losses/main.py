# optimizer.step(closure) with plain SGD; the closure backwards two losses
# that share the encoder's output separately. The second backward needs the
# graph the first freed; retain_graph=True on the first is the fix.
import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    enc = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
    heads = nn.ModuleList([nn.Linear(16, 1), nn.Linear(16, 1)])
    opt = torch.optim.SGD([*enc.parameters(), *heads.parameters()], lr=0.05)
    for step in range(6):
        x, y1, y2 = torch.randn(32, 8), torch.randn(32, 1), torch.randn(32, 1)

        def closure():
            opt.zero_grad()
            z = enc(x)
            l1 = F.mse_loss(heads[0](z), y1)
            l1.backward()
            l2 = F.mse_loss(heads[1](z), y2)
            l2.backward()
            return l1 + l2

        loss = opt.step(closure)
    print(loss.item())


if __name__ == "__main__":
    main()
