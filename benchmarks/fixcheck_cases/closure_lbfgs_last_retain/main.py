import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(5, 12), nn.Tanh(), nn.Linear(12, 1))
    x, y = torch.randn(32, 5), torch.randn(32, 1)
    optimizer = torch.optim.LBFGS(net.parameters(), lr=0.5, max_iter=4)

    def closure():
        optimizer.zero_grad()
        out = net(x)
        fit = (out - y).pow(2).mean()
        fit.backward(retain_graph=True)
        smooth = out.diff(dim=0).pow(2).mean() * 0.1
        smooth.backward(retain_graph=True)
        return fit + smooth

    for it in range(4):
        loss = optimizer.step(closure)
        print(it, loss.item())


if __name__ == "__main__":
    main()
