# Advantage actor-critic with an optimizer per network. The advantage built
# from the critic's value is used in the actor loss, whose backward frees the
# critic's graph; the critic's gradients from it are zeroed before the critic
# loss's backward. Correct: advantage.detach() in the actor loss (AD103; the
# textbook fix) or retain_graph=True on the actor backward; both match the
# reference.
import torch

from agent import Actor, Critic


def main():
    torch.manual_seed(0)
    actor, critic = Actor(), Critic()
    opt_actor = torch.optim.Adam(actor.parameters(), lr=1e-3)
    opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-3)
    for step in range(6):
        states = torch.randn(16, 6)
        returns = torch.randn(16)
        dist = actor(states)
        actions = dist.sample()
        advantage = returns - critic(states)
        actor_loss = -(dist.log_prob(actions) * advantage).mean()
        opt_actor.zero_grad()
        actor_loss.backward()
        opt_actor.step()
        critic_loss = advantage.pow(2).mean()
        opt_critic.zero_grad()
        critic_loss.backward()
        opt_critic.step()
    print(actor_loss.item(), critic_loss.item())


if __name__ == "__main__":
    main()
