# expect-before: runs
# autodetach-test: unsafe
# The adversarial terms come from a loss module of the project (critic.py)
# that returns a tuple; a batch too short for it skips the adversarial step,
# and that arm sets both losses to 0. The critic step is the last backward of
# the iteration and its loss scores detached waveforms only, yet it retains
# its graph: nothing backwards it again. A number has no backward, so the
# binding to 0 is never what `d_loss.backward()` runs on: the tuple from the
# loss module is, and it carries a graph. The networks come in a dict back
# from a checkpoint loader, so the analysis sees no graph in what the loss
# module returns: that the critic's graph shares nothing with the next
# iteration's losses is inferred, and the fix is unsafe.
import os

import torch

import critic as nets

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def value(loss):
    return loss.item() if torch.is_tensor(loss) else float(loss)


def main():
    model = nets.build_model()
    opt_g, opt_d = model["generator"].optimizer(1e-3), model["critic"].optimizer(1e-3)
    model, opt_d, start = nets.load_checkpoint(model, opt_d, os.environ.get("RESUME"))
    adv = nets.CriticLoss(model)
    for step in range(start, start + ITERS):
        size = 1 if step == 2 else 4
        noise, real = torch.randn(size, 6), torch.randn(size, 12)
        out = adv(step, real, noise) if size > 1 else None
        if out is not None:
            d_loss, g_loss, preview = out
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
            if d_loss != 0:
                opt_d.zero_grad()
                d_loss.backward(retain_graph=True)
                opt_d.step()
        else:
            d_loss, g_loss = 0, 0
        print(step, f"{value(d_loss):.6f} {value(g_loss):.6f}")

    total = sum(p.sum().item() for key in ("generator", "critic") for p in model[key].parameters())
    print(f"checksum {total:.6f}")


if __name__ == "__main__":
    main()
