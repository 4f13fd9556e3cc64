"""The project's entry point: trains the model, then samples from it."""
import torch
import torch.nn.functional as F

import train
from model import CharLSTM

VOCAB = 10


def fit(model, data):
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for chunk in data:
        logits, _ = model(chunk[:-1], model.init_hidden(chunk.size(1)))
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), chunk[1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"loss {loss.item():.6f}")


def main(iters):
    model = CharLSTM(VOCAB)
    fit(model, [torch.randint(0, VOCAB, (9, 4)) for _ in range(iters)])
    print(train.sample(model, [1, 2, 3], 6 * iters))
