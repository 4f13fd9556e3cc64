# An LSTM model keeps its (h, c) tuple on self and repackages only h; c
# still carries the previous batch's graph, so the second backward fails.
# The fix must detach c as well.
import torch
import torch.nn.functional as F

from model import LM


def main():
    torch.manual_seed(0)
    lm = LM()
    opt = torch.optim.Adam(lm.parameters(), lr=1e-2)
    stream = torch.randn(2, 30, 4)
    for i in range(0, 25, 5):
        loss = F.mse_loss(lm(stream[:, i:i + 5]), stream[:, i + 1:i + 6])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(loss.item())


if __name__ == "__main__":
    main()
