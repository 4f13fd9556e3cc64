import torch
import torch.nn.functional as F

from model import LM


def main():
    torch.manual_seed(0)
    model = LM()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    stream = torch.randint(0, 20, (4, 61))
    for i in range(0, 60, 10):
        x, y = stream[:, i:i + 10], stream[:, i + 1:i + 11]
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, 20), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(loss.item())


if __name__ == "__main__":
    main()
