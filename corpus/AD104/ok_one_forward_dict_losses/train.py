# expect-before: runs
# A style-transfer script in the shape of text-generation toolkits: the
# epoch function is nested in `main` and reads the model and the optimizers
# it closes over. The critic's step first; then one forward returns the
# auto-encoding loss and the total generator loss, which adds a classifier
# term to that same loss. The first backward retains the graph because the
# second walks it again (both are entries of the one dict the forward
# returned): retain_graph=True is needed.
import os

import torch

from model import StyleModel

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def main():
    torch.manual_seed(0)
    batches = [(torch.randn(8, 6), torch.randint(0, 2, (8,))) for _ in range(ITERS)]
    model = StyleModel({"encoder": "Linear", "decoder": "Linear", "classifier": "Linear"})
    opt_d = torch.optim.SGD(model.d_vars, lr=0.05)
    opt_g = torch.optim.SGD(model.g_vars, lr=0.02)
    opt_ae = torch.optim.SGD(model.g_vars, lr=0.05)

    def _train_epoch(lambda_g, epoch):
        model.train()
        for x, labels in batches:
            opt_d.zero_grad()
            opt_ae.zero_grad()
            opt_g.zero_grad()
            vals_d = model(x, labels, lambda_g, mode="train", component="D")
            loss_d = vals_d["loss_d"]
            loss_d.backward()
            opt_d.step()

            vals_g = model(x, labels, lambda_g, mode="train", component="G")
            loss_g = vals_g["loss_g"]
            loss_g_ae = vals_g["loss_g_ae"]
            loss_g_ae.backward(retain_graph=True)
            loss_g.backward()
            opt_ae.step()
            opt_g.step()
            recorder_g = {key: value.detach().cpu() for (key, value) in vals_g.items()}
            print(f"epoch {epoch} d {loss_d.item():.6f} ae {recorder_g['loss_g_ae'].item():.6f} g {loss_g.item():.6f}")

    for epoch in range(ITERS):
        _train_epoch(0.5, epoch)


if __name__ == "__main__":
    main()
