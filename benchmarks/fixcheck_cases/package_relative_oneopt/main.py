# The code lives in a package (gan/) with relative imports: gan/build.py makes
# ONE optimizer over a generator expression on a dict of networks, gan/engine.py
# runs the step with losses from gan/losses.py. One optimizer owns G and D:
# G learns from the D loss too. Correct: retain_graph=True on the D backward.
import torch

from gan.build import build
from gan.engine import Engine


def main():
    torch.manual_seed(0)
    nets, opt = build()
    engine = Engine(nets, opt)
    for _ in range(6):
        print(engine.step(torch.randn(16, 8)))


if __name__ == "__main__":
    main()
