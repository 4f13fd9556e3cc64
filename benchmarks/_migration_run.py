"""The runnable part of the migration benchmark: a few 2017-2019 scripts run
on synthetic data, before and after `--fix --unsafe-fixes`.

Each script's directory (its .py files, migrated for "after") is written to a
fresh temporary directory and the script runs there with a short argument
list, under a timeout. torchvision is not a dependency: a small stand-in
package (synthetic MNIST-shaped images, identity-like transforms, a
`save_image` that writes nothing) is put first on the path, so the scripts
read no real data and download nothing.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

# (mirror, path in the repository, arguments): small enough to finish in seconds.
GAN = ["--n_epochs", "1", "--batch_size", "8", "--sample_interval", "1000000"]
RUNNABLE = (
    ("jcjohnson+pytorch-examples", "tensor/two_layer_net_tensor.py", []),
    ("jcjohnson+pytorch-examples", "autograd/two_layer_net_autograd.py", []),
    ("jcjohnson+pytorch-examples", "autograd/two_layer_net_custom_function.py", []),
    ("jcjohnson+pytorch-examples", "nn/two_layer_net_nn.py", []),
    ("jcjohnson+pytorch-examples", "nn/two_layer_net_optim.py", []),
    ("jcjohnson+pytorch-examples", "nn/two_layer_net_module.py", []),
    ("jcjohnson+pytorch-examples", "nn/dynamic_net.py", []),
    ("pytorch+examples", "regression/main.py", []),
    ("pytorch+examples", "mnist/main.py", ["--epochs", "1", "--batch-size", "8", "--test-batch-size", "8"]),
    ("pytorch+examples", "vae/main.py", ["--epochs", "1", "--batch-size", "8"]),
    ("pytorch+examples", "word_language_model/main.py",
     ["--data", "synthetic_text", "--epochs", "1", "--emsize", "8", "--nhid", "8", "--bptt", "5",
      "--batch_size", "4", "--log-interval", "1000"]),
    ("eriklindernoren+PyTorch-GAN", "implementations/gan/gan.py", GAN),
    ("eriklindernoren+PyTorch-GAN", "implementations/dcgan/dcgan.py", GAN),
    ("eriklindernoren+PyTorch-GAN", "implementations/lsgan/lsgan.py", GAN),
    ("eriklindernoren+PyTorch-GAN", "implementations/wgan/wgan.py", GAN),
    ("eriklindernoren+PyTorch-GAN", "implementations/wgan_gp/wgan_gp.py", GAN),
    ("eriklindernoren+PyTorch-GAN", "implementations/cgan/cgan.py", GAN),
    ("eriklindernoren+PyTorch-GAN", "implementations/acgan/acgan.py", GAN),
    ("eriklindernoren+PyTorch-GAN", "implementations/infogan/infogan.py", GAN),
    ("eriklindernoren+PyTorch-GAN", "implementations/softmax_gan/softmax_gan.py", GAN),
)

# A stand-in for the parts of torchvision these scripts use.
_TV_INIT = "from . import datasets, transforms, utils\n"
_TV_DATASETS = '''
import torch


class MNIST(torch.utils.data.Dataset):
    """32 synthetic 28x28 images in [0, 1] with labels 0-9."""

    def __init__(self, root, train=True, download=False, transform=None, target_transform=None):
        g = torch.Generator().manual_seed(0 if train else 1)
        self.x = torch.rand(32, 1, 28, 28, generator=g)
        self.y = torch.randint(0, 10, (32,), generator=g)
        self.transform = transform

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = self.x[i]
        return (self.transform(x) if self.transform else x), int(self.y[i])
'''
_TV_TRANSFORMS = '''
import torch
import torch.nn.functional as F


class Compose:
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class ToTensor:
    def __call__(self, x):
        return x


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = mean[0], std[0]

    def __call__(self, x):
        return (x - self.mean) / self.std


class Resize:
    def __init__(self, size):
        self.size = size if isinstance(size, (tuple, list)) else (size, size)

    def __call__(self, x):
        return F.interpolate(x[None], size=self.size)[0]


Scale = Resize
'''
_TV_UTILS = "def save_image(*args, **kwargs):\n    pass\n"


def _stub(root: str) -> str:
    pkg = os.path.join(root, "_stub", "torchvision")
    os.makedirs(pkg)
    for name, text in (("__init__", _TV_INIT), ("datasets", _TV_DATASETS),
                       ("transforms", _TV_TRANSFORMS), ("utils", _TV_UTILS)):
        with open(os.path.join(pkg, name + ".py"), "w", encoding="utf-8") as fh:
            fh.write(text)
    return os.path.dirname(pkg)


def _text_corpus(d: str) -> None:
    words = "the cat sat on a mat and dog ran far away".split()
    os.makedirs(os.path.join(d, "synthetic_text"))
    for i, name in enumerate(("train", "valid", "test")):
        lines = [" ".join(words[(j * 7 + k + i) % len(words)] for k in range(8)) for j in range(40)]
        with open(os.path.join(d, "synthetic_text", name + ".txt"), "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")


def _run_one(files: dict, path: str, args: list, timeout: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="migrun-") as tmp:
        stub = _stub(tmp)
        work = os.path.join(tmp, "a", "b", "c")  # room for the scripts' '../../data'
        for rel, text in files.items():
            dest = os.path.join(work, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "w", encoding="utf-8") as fh:
                fh.write(text)
        cwd = os.path.join(work, os.path.dirname(path))
        _text_corpus(cwd)
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
        env.update(PYTHONPATH=stub, OMP_NUM_THREADS="1", CUDA_VISIBLE_DEVICES="", PYTHONHASHSEED="0")
        t0 = time.perf_counter()
        try:
            p = subprocess.run([sys.executable, os.path.basename(path), *args], cwd=cwd, env=env,
                               capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"runs": False, "error": f"timeout after {timeout} s"}
        out = {"runs": p.returncode == 0, "seconds": round(time.perf_counter() - t0, 1)}
        if p.returncode != 0:
            lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
            out["error"] = (lines[-1] if lines else f"exit {p.returncode}")[:200]
        else:
            lines = [ln for ln in p.stdout.splitlines() if ln.strip()]
            out["last_output"] = lines[-1][:120] if lines else ""
        return out


def run_checks(mirrors, read_dir, migrate, timeout: int = 120, only=None) -> list:
    """For the scripts of the given mirrors: read_dir(mirror, directory) ->
    {relative path: text} of its .py files; migrate(text, path) -> the text
    after `--fix --unsafe-fixes`."""
    rows = []
    for mirror, path, args in RUNNABLE:
        if mirror not in mirrors or (only and not any(o in path for o in only)):
            continue
        files = read_dir(mirror, os.path.dirname(path))
        if path not in files:
            rows.append({"repo": mirror.replace("+", "/"), "path": path, "error": "not in the mirror"})
            continue
        fixed = {rel: migrate(text, rel) for rel, text in files.items()}
        rows.append({"repo": mirror.replace("+", "/"), "path": path,
                     "before": _run_one(files, path, args, timeout),
                     "after": _run_one(fixed, path, args, timeout)})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)  # progress: a row per script
    return rows
