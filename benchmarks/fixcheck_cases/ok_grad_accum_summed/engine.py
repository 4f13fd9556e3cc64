import torch.nn.functional as F


def train_step(model, optimizer, batch, targets, micro=4):
    optimizer.zero_grad()
    loss = 0.0
    for xb, yb in zip(batch.chunk(micro), targets.chunk(micro)):
        loss = loss + F.cross_entropy(model(xb), yb) / micro
    loss.backward()
    optimizer.step()
    return loss.item()
