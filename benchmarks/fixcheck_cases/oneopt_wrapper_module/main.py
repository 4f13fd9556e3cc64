import torch
import torch.nn as nn


class VAEGAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 8))
        self.critic = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))


def main():
    torch.manual_seed(0)
    model = VAEGAN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for it in range(6):
        real = torch.randn(8, 8)
        fake = model.decoder(torch.randn(8, 4))
        optimizer.zero_grad()
        critic_loss = model.critic(fake).mean() - model.critic(real).mean()
        critic_loss.backward()
        gen_loss = -model.critic(fake).mean()
        gen_loss.backward()
        optimizer.step()
    print(critic_loss.item(), gen_loss.item())


if __name__ == "__main__":
    main()
