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

    def goal(self, x):
        return torch.tanh(self.to_goal(torch.tanh(self.manager(x))))

    def manager_loss(self, x, target):
        return (self.goal(x) - target).pow(2).mean()

    def worker_loss(self, x, target):
        goal = self.goal(x).detach()  # the worker acts on the goal; its loss trains the worker only
        return F.mse_loss(self.worker(x) * goal, target)

    def split_params(self):
        mana_params = list(self.manager.parameters()) + list(self.to_goal.parameters())
        work_params = list(self.worker.parameters())
        return mana_params, work_params
