import torch


def build_optimizers(models, lr=1e-3):
    return {name: torch.optim.Adam(m.parameters(), lr=lr) for name, m in models.items()}
