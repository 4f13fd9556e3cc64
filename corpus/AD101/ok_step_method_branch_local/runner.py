"""The project's entry point: one trainer step per iteration."""


def main(trainer, iters):
    for _ in range(iters):
        print(f"{trainer.autoencoder_step():.6f}")
    print(f"{sum(p.sum().item() for p in trainer.ae.parameters()):.6f}")
