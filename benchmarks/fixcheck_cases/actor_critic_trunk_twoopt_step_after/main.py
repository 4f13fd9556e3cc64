# Actor-critic, shared trunk, TWO optimizers: opt_actor over trunk + policy
# head, opt_critic over the value head only. Both are zeroed, both losses
# backwarded, then both step. The critic loss's gradient through the trunk
# lands in trunk.grad, which opt_actor steps: a detach of the trunk features
# in the critic loss changes the numbers; retain_graph=True is the fix.
import torch

from agent import ActorCritic


def main():
    torch.manual_seed(0)
    ac = ActorCritic()
    opt_actor = torch.optim.Adam(list(ac.trunk.parameters()) + list(ac.pi.parameters()), lr=3e-3)
    opt_critic = torch.optim.Adam(ac.v.parameters(), lr=1e-2)
    for step in range(6):
        obs, ret = torch.randn(32, 6), torch.randn(32)
        dist, value = ac(obs)
        act = dist.sample()
        actor_loss = -(dist.log_prob(act) * (ret - value.detach())).mean()
        critic_loss = (ret - value).pow(2).mean()
        opt_actor.zero_grad()
        opt_critic.zero_grad()
        actor_loss.backward()
        critic_loss.backward()
        opt_actor.step()
        opt_critic.step()
    print(actor_loss.item(), critic_loss.item())


if __name__ == "__main__":
    main()
