# TBPTT done right: the (h, c) tuple lives on the model and is repackaged
# element by element at the start of every forward. Correct: no change.
import torch
import torch.nn as nn
import torch.nn.functional as F


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 8, batch_first=True)
        self.out = nn.Linear(8, 4)
        self.hc = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))

    def forward(self, x):
        self.hc = tuple(t.detach() for t in self.hc)
        y, self.hc = self.rnn(x, self.hc)
        return self.out(y)


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
