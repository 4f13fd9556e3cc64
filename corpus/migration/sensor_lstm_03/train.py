"""Train the forecaster, keep the best checkpoint, reload it, forecast."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Variable

from . import data
from .losses import SmoothForecastLoss
from .model import Forecaster
from .utils import load_checkpoint, repackage_hidden, save_checkpoint

SEED = 7
SENSORS = 3
HIDDEN = 16
LAYERS = 2
BATCH = 4
EVAL_BATCH = 2
BPTT = 10
EPOCHS = 3
LR = 0.01
CLIP = 0.5

torch.manual_seed(SEED)
series, mean, std = data.normalise(data.make_series(600, SENSORS, SEED))
train_data = data.batchify(series[:480], BATCH)
valid_data = data.batchify(series[480:], EVAL_BATCH)

model = Forecaster(SENSORS, HIDDEN, LAYERS)
criterion = SmoothForecastLoss(smooth=0.1)
optimizer = optim.Adam(model.parameters(), lr=LR)


def train_epoch():
    model.train()
    total_loss = 0
    hidden = model.init_hidden(BATCH)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, BPTT)):
        x, y = data.get_batch(train_data, i, BPTT)
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        out, hidden = model(x, hidden)
        loss = criterion(out, y)
        loss.backward()
        nn.utils.clip_grad_norm(model.parameters(), CLIP)
        optimizer.step()
        total_loss += criterion.last
    return total_loss / (batch + 1)


def evaluate(source):
    model.eval()
    total = 0
    hidden = model.init_hidden(EVAL_BATCH)
    for i in range(0, source.size(0) - 1, BPTT):
        seq_len = min(BPTT, source.size(0) - 1 - i)
        x = Variable(source[i:i + seq_len], volatile=True)
        y = Variable(source[i + 1:i + 1 + seq_len], volatile=True)
        out, hidden = model(x, hidden)
        loss = criterion(out, y)
        total += seq_len * loss.data[0]
        hidden = repackage_hidden(hidden)
    return total / (source.size(0) - 1)


if __name__ == '__main__':
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'forecaster.pt')
        for epoch in range(1, EPOCHS + 1):
            train_loss = train_epoch()
            val_loss = evaluate(valid_data)
            print('epoch %d | train loss %.5f | valid loss %.5f' % (epoch, train_loss, val_loss))
            if best is None or val_loss < best:
                best = val_loss
                save_checkpoint(path, model, optimizer, epoch, best)
        epoch, best = load_checkpoint(path, model, optimizer)
    print('best epoch %d | reloaded valid loss %.5f (saved %.5f)' % (epoch, evaluate(valid_data), best))
    model.eval()
    x = Variable(series[-BPTT:].unsqueeze(1), volatile=True)
    out, _ = model(x, model.init_hidden(1))
    pred = out[-1] * std + mean
    print('next reading: ' + ' '.join('%.4f' % v for v in pred.data[0]))
