import torch
import torch.nn as nn


class QueueLoss(nn.Module):
    """Scores the batch against the embeddings of earlier batches (a queue) and hands the
    queue, refilled with this batch's embedding, back with the flag it was given."""

    def __init__(self, temperature):
        super().__init__()
        self.temperature = temperature

    def forward(self, output, embedding, prototypes, queue=None, use_queue=False):
        scores = torch.cat((queue @ prototypes.t(), output)) if use_queue else output
        queue = torch.cat((embedding, queue[:-len(embedding)]))
        loss = -torch.log_softmax(scores / self.temperature, dim=1).mean()
        return loss, queue, use_queue
