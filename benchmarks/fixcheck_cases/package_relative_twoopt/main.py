# Control for package_relative_oneopt: gan/build.py makes one optimizer per
# network, and gan/engine.py zeroes G before its backward. Correct:
# D(fake.detach()) in the D loss (AD103) or retain_graph=True on the D
# backward; both match the reference.
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
