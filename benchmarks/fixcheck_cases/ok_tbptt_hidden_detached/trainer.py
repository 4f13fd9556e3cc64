import torch.nn.functional as F


class TBPTTTrainer:
    def __init__(self, model, optimizer, bptt=10):
        self.model = model
        self.optimizer = optimizer
        self.bptt = bptt
        self.hidden = None

    def train_chunk(self, x, y):
        if self.hidden is not None:
            self.hidden = self.hidden.detach()
        logits, self.hidden = self.model(x, self.hidden)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def train_stream(self, stream):
        for i in range(0, stream.size(1) - 1 - self.bptt, self.bptt):
            self.train_chunk(stream[:, i:i + self.bptt], stream[:, i + 1:i + 1 + self.bptt])
