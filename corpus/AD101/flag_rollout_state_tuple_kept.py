# expect-before: runs
# An acting loop feeds an LSTM's `(h, c)` state from step to step with
# gradients on and stores each step's input state with the transition, for a
# training step that detaches the first one: the state's graph grows over the
# rollout and from one chunk of it to the next. The state is a tuple (bound
# to one before the loop, and what `nn.LSTM` returns), so
# `h_in = h_out.detach()` would raise: the rule reports it and offers no fix.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.data = []
        self.fc = nn.Linear(4, 8)
        self.lstm = nn.LSTM(8, 8)
        self.head = nn.Linear(8, 2)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.05)

    def pi(self, x, hidden):
        x = torch.relu(self.fc(x)).view(-1, 1, 8)
        x, lstm_hidden = self.lstm(x, hidden)
        return torch.softmax(self.head(x), dim=2), lstm_hidden

    def put_data(self, transition):
        self.data.append(transition)

    def train_net(self):
        s = torch.stack([d[0] for d in self.data])
        h1, c1 = self.data[0][1]
        self.data = []
        prob, _ = self.pi(s, (h1.detach(), c1.detach()))
        loss = prob.pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


model = Agent()
for episode in range(ITERS):
    h_out = (torch.zeros(1, 1, 8), torch.zeros(1, 1, 8))
    for chunk in range(2):
        for t in range(ITERS):
            h_in = h_out
            s = torch.randn(4)
            prob, h_out = model.pi(s, h_in)
            model.put_data((s, h_in, h_out))
        print(f"{episode} {chunk} loss {model.train_net():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
