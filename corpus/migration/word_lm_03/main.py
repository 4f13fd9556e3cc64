# A word language model trained with truncated BPTT, as written for PyTorch 0.3:
# Variable everywhere, volatile evaluation, loss.data accumulators read with [0],
# a hand-written SGD step with the learning rate passed first to add_.
import argparse
import math
import os

import torch
import torch.nn as nn
from torch.autograd import Variable

import data
import model

HERE = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser(description='tiny word LM (PyTorch 0.3 style)')
parser.add_argument('--data', type=str, default=os.path.join(HERE, '..', 'word_lm_data'))
parser.add_argument('--model', type=str, default='LSTM')
parser.add_argument('--emsize', type=int, default=16)
parser.add_argument('--nhid', type=int, default=24)
parser.add_argument('--nlayers', type=int, default=2)
parser.add_argument('--lr', type=float, default=5)
parser.add_argument('--clip', type=float, default=0.25)
parser.add_argument('--epochs', type=int, default=int(os.environ.get('AUTODETACH_ITERS', '3')))
parser.add_argument('--batch_size', type=int, default=4)
parser.add_argument('--bptt', type=int, default=8)
parser.add_argument('--dropout', type=float, default=0.2)
parser.add_argument('--seed', type=int, default=1111)
parser.add_argument('--log-interval', type=int, default=4)
parser.add_argument('--words', type=int, default=12)
args = parser.parse_args()

torch.manual_seed(args.seed)
corpus = data.Corpus(args.data)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


eval_batch_size = 2
train_data = batchify(corpus.train, args.batch_size)
val_data = batchify(corpus.valid, eval_batch_size)
test_data = batchify(corpus.test, eval_batch_size)

ntokens = len(corpus.dictionary)
model = model.RNNModel(args.model, ntokens, args.emsize, args.nhid, args.nlayers, args.dropout)
criterion = nn.CrossEntropyLoss()


def repackage_hidden(h):
    """Wraps hidden states in new Variables, to detach them from their history."""
    if type(h) == Variable:
        return Variable(h.data)
    else:
        return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i, evaluation=False):
    seq_len = min(args.bptt, len(source) - 1 - i)
    data = Variable(source[i:i + seq_len], volatile=evaluation)
    target = Variable(source[i + 1:i + 1 + seq_len].view(-1))
    return data, target


def evaluate(data_source):
    model.eval()
    total_loss = 0
    hidden = model.init_hidden(eval_batch_size)
    for i in range(0, data_source.size(0) - 1, args.bptt):
        data, targets = get_batch(data_source, i, evaluation=True)
        output, hidden = model(data, hidden)
        output_flat = output.view(-1, ntokens)
        total_loss += len(data) * criterion(output_flat, targets).data
        hidden = repackage_hidden(hidden)
    return total_loss[0] / len(data_source)


def train():
    model.train()
    total_loss = 0
    hidden = model.init_hidden(args.batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i)
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, ntokens), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm(model.parameters(), args.clip)
        for p in model.parameters():
            p.data.add_(-lr, p.grad.data)
        total_loss += loss.data
        if batch % args.log_interval == 0 and batch > 0:
            cur_loss = total_loss[0] / args.log_interval
            print('| epoch {:3d} | {:3d}/{:3d} batches | lr {:.2f} | loss {:.6f} | ppl {:.6f}'.format(
                epoch, batch, len(train_data) // args.bptt, lr, cur_loss, math.exp(cur_loss)))
            total_loss = 0


lr = args.lr
best_val_loss = None
for epoch in range(1, args.epochs + 1):
    train()
    val_loss = evaluate(val_data)
    print('| end of epoch {:3d} | valid loss {:.6f} | valid ppl {:.6f}'.format(
        epoch, val_loss, math.exp(val_loss)))
    if not best_val_loss or val_loss < best_val_loss:
        best_val_loss = val_loss
    else:
        lr /= 4.0

test_loss = evaluate(test_data)
print('| end of training | test loss {:.6f} | test ppl {:.6f}'.format(test_loss, math.exp(test_loss)))

# Sample a few words from the trained model.
model.eval()
hidden = model.init_hidden(1)
input = Variable(torch.rand(1, 1).mul(ntokens).long(), volatile=True)
words = []
for i in range(args.words):
    output, hidden = model(input, hidden)
    word_weights = output.squeeze().data.exp()
    word_idx = torch.multinomial(word_weights, 1)[0]
    input.data.fill_(word_idx)
    words.append(corpus.dictionary.idx2word[word_idx])
print('| sample | ' + ' '.join(words))
