# expect-before: runs
# A char-RNN trained on fixed windows (fresh state per batch), then sampled
# statefully under torch.no_grad(): the fed-back state carries no graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class CharRNN(nn.Module):
    def __init__(self, vocab, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, 16)
        self.rnn = nn.GRU(16, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x, h=None):
        y, h = self.rnn(self.embed(x), h)
        return self.out(y), h


def main():
    torch.manual_seed(0)
    text = "hello world, hello torch. " * 10
    vocab = sorted(set(text))
    stoi = {c: i for i, c in enumerate(vocab)}
    data = torch.tensor([stoi[c] for c in text])
    model = CharRNN(len(vocab))
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    loss_fn = nn.CrossEntropyLoss()
    for it in range(ITERS):
        starts = torch.randint(0, len(data) - 11, (4,))
        x = torch.stack([data[s:s + 10] for s in starts])
        y = torch.stack([data[s + 1:s + 11] for s in starts])
        logits, _ = model(x)
        loss = loss_fn(logits.reshape(-1, len(vocab)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"{it} loss {loss.item():.6f}")

    model.eval()
    h = None
    token = torch.tensor([[stoi["h"]]])
    out = []
    with torch.no_grad():
        for _ in range(20):
            logits, h = model(token, h)
            token = logits[:, -1].argmax(-1, keepdim=True)
            out.append(vocab[token.item()])
    print("sample", "".join(out))
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
