# A config-driven factory builds the models into a dict and ONE optimizer
# over the parts the config names. The decoder output is computed once and
# used by two losses with two backward calls (the second walks the freed
# encoder/decoder graph). One optimizer: retain_graph=True is the fix.
import torch
import torch.nn.functional as F

from config import Config
from factory import make_models, make_optimizer


def main():
    torch.manual_seed(0)
    cfg = Config()
    models = make_models(cfg)
    opt = make_optimizer(cfg, models)
    for step in range(6):
        x = torch.randn(32, 8)
        rec = models["decoder"](models["encoder"](x))
        opt.zero_grad()
        F.mse_loss(rec, x).backward()
        (1e-2 * rec.abs().mean()).backward()
        opt.step()
    print(rec.sum().item())


if __name__ == "__main__":
    main()
