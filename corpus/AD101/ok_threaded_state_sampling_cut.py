# expect-before: runs
# Two recurrent loops that keep no graph: the sampler threads the GRU state
# through `model(x, state)` but its only caller runs it under no_grad, and the
# agent's `act` hands back its LSTM state detached. Nothing to report.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
VOCAB = 10


class CharRNN(nn.Module):
    def __init__(self, vocab=VOCAB, hidden=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        out, state = self.gru(self.embed(x), state)
        return self.head(out), state


class Agent:
    def __init__(self):
        self.lstm = nn.LSTM(3, 8)
        self.q = nn.Linear(8, 3)

    def act(self, obs, hc):
        out, hc = self.lstm(obs.view(1, 1, -1), hc)
        return self.q(out).argmax().item(), tuple(s.detach() for s in hc)


def sample(model, x, length):
    state = None
    chars = []
    for _ in range(length):
        logits, state = model(x, state)
        x = logits.argmax(-1)
        chars.append(int(x.item()))
    return chars


model = CharRNN()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randint(0, VOCAB, (ITERS, 4, 7))
for step in range(ITERS):
    logits, _ = model(data[step, :, :-1])
    loss = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), data[step, :, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{step} loss {loss.item():.6f}")
with torch.no_grad():
    print(sample(model, data[0, :1, :1], 5 * ITERS))

agent = Agent()
hc = (torch.zeros(1, 1, 8), torch.zeros(1, 1, 8))
actions = []
for t in range(3 * ITERS):
    action, hc = agent.act(torch.randn(3), hc)
    actions.append(action)
print(actions)
