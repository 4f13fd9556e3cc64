# A model keeps a running context on self inside forward (an exponential
# average of its input features, never detached) and reads it in its output.
# The features come from a layer on the raw input, which saves no weight, so
# the retain_graph reference runs: its backward walks every earlier batch and
# adds their gradients. The original fails on the second backward. A detach
# of the state is the cut stateful code usually wants, but it changes the
# updates: it must be an unsafe fix (or none), never a safe one.
import torch
import torch.nn.functional as F

from model import ContextNet


def main():
    torch.manual_seed(0)
    net = ContextNet()
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    for _ in range(6):
        x, y = torch.randn(16, 8), torch.randn(16, 1)
        opt.zero_grad()
        loss = F.mse_loss(net(x), y)
        loss.backward()
        opt.step()
    print(loss.item())


if __name__ == "__main__":
    main()
