# Truncated BPTT with the hidden state kept on the trainer and detached at
# the start of every chunk (the repackage done right). Correct: no finding.
import torch

from model import CharRNN
from trainer import TBPTTTrainer


def main():
    torch.manual_seed(0)
    model = CharRNN()
    trainer = TBPTTTrainer(model, torch.optim.SGD(model.parameters(), lr=0.5))
    trainer.train_stream(torch.randint(0, 20, (4, 62)))
    print(sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
