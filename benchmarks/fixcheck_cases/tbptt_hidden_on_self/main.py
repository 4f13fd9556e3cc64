# Truncated BPTT with the hidden state kept on the trainer (self.hidden) and
# never repackaged: the second chunk's backward reaches the first chunk's
# freed graph. Correct: detach self.hidden at each chunk (AD106, repackage).
# The retain_graph reference itself fails here (the step changed the GRU's
# weights that the old graph saved), so fixcheck can only say `no reference`;
# the detach is the cut truncated BPTT asks for.
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
