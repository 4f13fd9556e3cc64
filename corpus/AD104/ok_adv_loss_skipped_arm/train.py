# expect-before: runs
# The adversarial loss module of the project (adv_losses.py) scores the generated
# waveform without detaching it, so the critic step's backward walks the
# generator's graph too; the generator step that follows backwards through
# that same graph, so the retain is needed. The arm for batches too short for
# the loss module sets both losses to 0 (a binding no backward runs on).
import os

import torch

import adv_losses as nets

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
            d_loss, fake = out
            if d_loss != 0:
                opt_d.zero_grad()
                d_loss.backward(retain_graph=True)
                opt_d.step()
            g_loss = adv.generator_loss(fake)
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
        else:
            d_loss, g_loss = 0, 0
        print(step, f"{value(d_loss):.6f} {value(g_loss):.6f}")

    total = sum(p.sum().item() for key in ("generator", "critic") for p in model[key].parameters())
    print(f"checksum {total:.6f}")


if __name__ == "__main__":
    main()
