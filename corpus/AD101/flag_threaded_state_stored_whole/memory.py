import torch


class EpisodeMemory:
    def __init__(self):
        self.items = []

    def push(self, obs, carry):
        self.items.append((obs, torch.stack([carry]).view(-1)))

    def sample(self, n):
        obs, carries = zip(*self.items[-n:])
        return torch.stack(obs), torch.stack(carries)
