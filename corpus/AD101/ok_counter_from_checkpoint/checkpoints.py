"""The project's checkpoint helpers (imported by train.py)."""
import torch


def save_state(path, model, optimizer, step, epoch):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "step": step, "epoch": epoch}, path)


def load_state(path, model, optimizer):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    return model, optimizer, ckpt["step"], ckpt["epoch"]
