"""A history of generated images replayed to the discriminators: half of the
batches go through unchanged (with their graph), the others as copies from `.data`."""
import random

import torch


class FakeHistory:
    def __init__(self, capacity):
        self.capacity = capacity
        self.count = 0
        self.stored = []

    def replay(self, images):
        if random.uniform(0, 1) < 0.5:
            return images
        picked = []
        for image in images:
            image = torch.unsqueeze(image.data, 0)
            if self.count < self.capacity:
                self.count += 1
                self.stored.append(image)
                picked.append(image)
            elif random.uniform(0, 1) > 0.5:
                slot = random.randint(0, self.capacity - 1)
                picked.append(self.stored[slot].clone())
                self.stored[slot] = image
            else:
                picked.append(image)
        return torch.cat(picked, 0)
