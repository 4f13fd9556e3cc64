# MAML: an inner loop adapts functional copies of the weights with
# autograd.grad(create_graph=True); the outer loss on the adapted weights is
# backwarded once per meta-step into the original parameters. The inner
# graph is meant to be kept until the outer backward. Correct: no change.
import torch
import torch.nn.functional as F


def forward(params, x):
    w1, b1, w2, b2 = params
    return F.linear(torch.tanh(F.linear(x, w1, b1)), w2, b2)


def main():
    torch.manual_seed(0)
    params = [torch.randn(16, 4) * 0.3, torch.zeros(16), torch.randn(1, 16) * 0.3, torch.zeros(1)]
    params = [p.requires_grad_() for p in params]
    meta = torch.optim.Adam(params, lr=1e-2)
    for step in range(6):
        meta.zero_grad()
        for task in range(3):
            xs, ys, xq, yq = torch.randn(8, 4), torch.randn(8, 1), torch.randn(8, 4), torch.randn(8, 1)
            fast = params
            for _ in range(2):
                g = torch.autograd.grad(F.mse_loss(forward(fast, xs), ys), fast, create_graph=True)
                fast = [p - 0.1 * gi for p, gi in zip(fast, g)]
            (F.mse_loss(forward(fast, xq), yq) / 3).backward()
        meta.step()
    print(params[0].sum().item())


if __name__ == "__main__":
    main()
