import torch
import torch.nn as nn


class QueueLoss(nn.Module):
    """Scores the batch against a queue of earlier embeddings when the flag says so, and hands
    the flag back as it was given."""

    def __init__(self, temperature):
        super().__init__()
        self.temperature = temperature

    def forward(self, output, prototypes, queue, use_queue=False):
        scores = torch.cat((queue @ prototypes.t(), output)) if use_queue else output
        loss = -torch.log_softmax(scores / self.temperature, dim=1).mean()
        return loss, use_queue
