import torch
from torch import nn


def dqn_loss(batch, net, target_net, gamma=0.9):
    """TD loss; the target network runs with gradients off."""
    states, actions, rewards, next_states = batch
    values = net(states).gather(1, actions.unsqueeze(-1)).squeeze(-1)
    with torch.no_grad():
        next_values = target_net(next_states).max(1)[0]
    return nn.functional.mse_loss(values, rewards + gamma * next_values)
