"""The generator: a manager that sets goals and a worker that acts on them."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class HierGenerator(nn.Module):
    def __init__(self, features, goal_size):
        super().__init__()
        self.manager = nn.Linear(features, goal_size)
        self.to_goal = nn.Linear(goal_size, features)
        self.worker = nn.Linear(features, features)

    def losses(self, x, target):
        goal = torch.tanh(self.to_goal(torch.tanh(self.manager(x))))
        out = self.worker(x) * goal
        mana_loss = (goal - target).pow(2).mean()
        work_loss = F.mse_loss(out, target)
        return mana_loss, work_loss

    def split_params(self):
        mana_params = list(self.manager.parameters()) + list(self.to_goal.parameters())
        work_params = list(self.worker.parameters())
        return mana_params, work_params
