import torch


class MultiTaskAgent:
    def __init__(self, num_tasks):
        self.num_tasks = num_tasks

    def per_task_loss(self, loss, task_index):
        total = torch.zeros(self.num_tasks).scatter_add(0, task_index, loss)
        count = torch.zeros(self.num_tasks).scatter_add(0, task_index, torch.ones_like(loss))
        return total / count
