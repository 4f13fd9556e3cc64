# Negative: gradient accumulation by summing losses ACROSS iterations on the
# trainer (self.pending += loss) and backwarding the sum every `accum` steps
# in another method, flush(). The graph kept across iterations is the point:
# .item() or .detach() on the accumulator would stop all learning. Correct:
# no fix (no retain, no detach, no .item()).
import torch
import torch.nn as nn

from trainer import AccumTrainer


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    trainer = AccumTrainer(model, torch.optim.SGD(model.parameters(), lr=0.05), accum=3)
    for i in range(12):
        trainer.step(torch.randn(16, 8), torch.randn(16, 1))
    print(sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
