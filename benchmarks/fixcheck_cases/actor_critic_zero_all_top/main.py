# Actor-critic with a shared body: opt_actor owns body + policy head,
# opt_critic owns the value head only. Both optimizers are zeroed at the top
# of the iteration (a loop over the optimizers). The critic loss is
# backwarded first, through the body, and frees the body's graph; the actor
# backward then needs it. The body's gradient from the critic loss is NOT
# thrown away: opt_actor steps the body with it. Correct: retain_graph=True
# on the critic backward; feat.detach() in the critic loss would be wrong.
import torch

from agent import SharedAC


def main():
    torch.manual_seed(0)
    net = SharedAC()
    opt_actor = torch.optim.Adam(list(net.body.parameters()) + list(net.pi.parameters()), lr=1e-3)
    opt_critic = torch.optim.Adam(net.v.parameters(), lr=1e-3)
    for _ in range(6):
        states, returns = torch.randn(16, 6), torch.randn(16)
        for opt in (opt_actor, opt_critic):
            opt.zero_grad()
        feat = net.body(states)
        value = net.v(feat).squeeze(-1)
        critic_loss = (returns - value).pow(2).mean()
        critic_loss.backward()
        opt_critic.step()
        dist = torch.distributions.Categorical(logits=net.pi(feat))
        actions = dist.sample()
        actor_loss = -(dist.log_prob(actions) * (returns - value.detach())).mean()
        actor_loss.backward()
        opt_actor.step()
    print(actor_loss.item(), critic_loss.item())


if __name__ == "__main__":
    main()
