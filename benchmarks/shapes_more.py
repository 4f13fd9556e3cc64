"""More generated shapes for shapes.py (`--family more`): other bugs, placements and owners.

Axes:

- bug: `gan` (D step on an un-detached fake, then a G step; v1: retain on
  both backwards, the last one unneeded, or on D's only: negative), `stale` (the G
  loss is computed before D's step and backwarded after it: AD108), `retain`
  (retain_graph=True on a backward no later backward needs: AD104),
  `selfstate` (a module keeping its recurrent state on `self` in `forward`:
  AD106), `prebuilt` (an encoding built once before the loop and reused:
  AD107), `meter` (an AverageMeter in metrics.py handed the loss: AD102);
- placement: `flat`, `dicts` (a Trainer keeping `self.models[...]` and
  `self.optims[...]`), `dictargs` (the same, the optimizers built from the
  constructor's arguments: `SGD(G.parameters())`), `lightning` (a LightningModule with
  `automatic_optimization = False` and `self.manual_backward`, run by a real
  `pl.Trainer`), `accel` (`accelerator.prepare` and `accelerator.backward`),
  `stepret` (a step function in steps.py that returns its loss to main's
  loop, which logs `.item()`);
- owner: `per-model`, `one` (one optimizer over every model), `part` (the
  optimizers' param groups cover only part of a model), `caller` (stepret
  only: main steps the last optimizer);
- negative: the code is already correct.

Step lines are written once per bug with `ZERO o`, `STEP o` and `BW loss
[retain]` markers that each placement spells its own way.
"""
from __future__ import annotations

import itertools

BUGS = ("gan", "stale", "retain", "selfstate", "prebuilt", "meter")
PLACES = ("flat", "dicts", "dictargs", "lightning", "accel", "stepret")
OWNERS = ("per-model", "one", "part", "caller")

MODELS = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.a = nn.Linear(i, 6)
        self.b = nn.Linear(6, o)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x)))


class StatefulCell(nn.Module):
    """Keeps its hidden state between calls."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 5)
        self.b = nn.Linear(5, 1)
        self.h = None

    def forward(self, x):
        if self.h is None:
            self.h = torch.zeros(x.shape[0], 5)
        self.h = torch.tanh(self.a(torch.cat([x, %s], 1)))
        return self.b(self.h)
'''

METRICS = '''class AverageMeter:
    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class Logger:
    """Keeps every value it is given, as a float."""

    def __init__(self):
        self.rows = []

    def log(self, name, value):
        self.rows.append((name, float(value)))
'''

BCE = "F.binary_cross_entropy_with_logits"


def spec(bug, owner, neg, variant):
    """models [(name, ctor)], optimizers {real: [(model, part or None)]}, logical -> real, state
    [(name, init)], prebuilt [(name, expr)], step lines, returned loss."""
    opts, omap, state, pre = {}, {}, [], []
    if bug in ("gan", "stale", "retain"):
        models = [("G", "Net(2, 3)"), ("D", "Net(3, 1)")]
        if owner == "one":
            opts, omap = {"opt": [("G", None), ("D", None)]}, {"optG": "opt", "optD": "opt"}
        elif owner == "part":  # G.a is in no optimizer
            opts, omap = {"optG": [("G", "b")], "optD": [("D", None)]}, {"optG": "optG", "optD": "optD"}
        else:
            opts, omap = {"optG": [("G", None)], "optD": [("D", None)]}, {"optG": "optG", "optD": "optD"}
        one = owner == "one"
        if bug == "gan":  # v1: retain on the D backward instead of the cut
            cut = neg and not variant
            d = [f"d_loss = {BCE}({{D}}(x), torch.ones(4, 1)) + {BCE}({{D}}({'fake.detach()' if cut else 'fake'}), "
                 "torch.zeros(4, 1))", "ZERO optD", "BW d_loss" + (" retain" if variant and not (neg and one) else ""),
                 "STEP optD"]
            g = (["fake = {G}(z)"] if neg and variant and one else []) \
                + [f"g_loss = {BCE}({{D}}(fake), torch.ones(4, 1))", "ZERO optG",
                   "BW g_loss" + (" retain" if variant and not neg else ""), "STEP optG"]  # pos v1: unneeded
            lines = ["fake = {G}(z)"] + d + g
        elif bug == "stale":  # the G loss is built before D's step (neg: after it)
            d = [f"d_loss = {BCE}({{D}}(x), torch.ones(4, 1)) + {BCE}({{D}}(fake.detach()), torch.zeros(4, 1))"]
            gl = [f"g_loss = {BCE}({{D}}(fake), torch.ones(4, 1))"]
            d_step = ["ZERO optD", "BW d_loss", "STEP optD"]
            lines = ["fake = {G}(z)"] + d + (d_step + gl if neg else gl + d_step) + ["ZERO optG", "BW g_loss",
                                                                                     "STEP optG"]
        else:  # retain: the D step is on a cut fake, its retain is unneeded (neg: G reuses D's un-cut fake)
            cut = not neg
            lines = ["fake = {G}(z)",
                     f"d_loss = {BCE}({{D}}(x), torch.ones(4, 1)) + {BCE}({{D}}({'fake.detach()' if cut else 'fake'}),"
                     " torch.zeros(4, 1))", "ZERO optD", "BW d_loss retain", "STEP optD",
                     f"g_loss = {BCE}({{D}}(fake), torch.ones(4, 1))", "ZERO optG", "BW g_loss", "STEP optG"]
        return models, opts, omap, state, pre, lines, "g_loss"
    if bug == "selfstate":
        models = [("net", "StatefulCell()")]
    elif bug == "prebuilt":
        models = [("enc", "Net(3, 3)"), ("net", "Net(3, 1)")]
    else:
        models = [("net", "Net(3, 1)")]
    if owner == "part":
        opts = {"opt": [("net", "b")]}
    elif owner == "one" and bug == "prebuilt":
        opts = {"opt": [("enc", None), ("net", None)]}
    else:
        opts = {"opt": [("net", None)]}
    omap = {"opt": "opt"}
    if bug == "selfstate":
        lines = ["out = {net}(x)", "loss = F.mse_loss(out, y)"]
    elif bug == "prebuilt":  # neg: the encoding is cut (enc learns nowhere) or rebuilt per batch
        if neg and owner == "one":
            lines = ["emb = {enc}({x0})", "loss = F.mse_loss({net}(emb), y)"]
        else:
            pre = [("emb", "{enc}({x0}).detach()" if neg else "{enc}({x0})")]
            lines = ["loss = F.mse_loss({net}({emb}), y)"]
    else:
        state = [("meter", "AverageMeter()")] if not (neg and variant) else [("meter", "Logger()")]
        lines = ["loss = F.mse_loss({net}(x), y)"]
    lines += ["ZERO opt", "BW loss", "STEP opt"]
    if bug == "meter":
        lines.append("{meter}.update(loss.item(), x.shape[0])" if neg and not variant else
                     '{meter}.log("loss", loss)' if neg else "{meter}.update(loss, x.shape[0])")
    return models, opts, omap, state, pre, lines, "loss"


def valid(bug, place, owner, neg):
    if owner == "caller" and place != "stepret":
        return False
    if bug in ("selfstate", "meter") and owner == "one":
        return False  # one model: the same program as per-model
    if bug == "retain" and neg and owner == "one":
        return False  # D's step moved G: G's retained graph is stale, the program fails as written
    return True


def variants(bug, owner):
    return (0, 1) if bug == "gan" or bug == "meter" else (0,)


def shapes():
    out = []
    for bug, place, owner, neg in itertools.product(BUGS, PLACES, OWNERS, (False, True)):
        if not valid(bug, place, owner, neg):
            continue
        vs = variants(bug, owner)
        for v in vs:
            name = "-".join(["more", bug, place, owner, "neg" if neg else "pos"] + ([f"v{v}"] if len(vs) > 1 else []))
            out.append((name, dict(bug=bug, place=place, owner=owner, neg=neg, variant=v)))
    return out


def ind(lines, n):
    return ["    " * n + ln if ln else "" for ln in lines]


def params(parts, ref):
    return " + ".join(f"list({ref(m)}{'.' + p if p else ''}.parameters())" for m, p in parts)


def render(lines, ref, opt, bw, caller_last=None):
    """Spell the markers: `opt(real)` an optimizer's handle, `bw(loss, retain)` a backward."""
    out = []
    for ln in lines:
        word = ln.split(" ")
        if word[0] == "ZERO":
            out.append(f"{opt(word[1])}.zero_grad()")
        elif word[0] == "STEP":
            if word[1] != caller_last:
                out.append(f"{opt(word[1])}.step()")
        elif word[0] == "BW":
            out.append(bw(word[1], len(word) > 2))
        else:
            out.append(ln.format(**ref))
    return out


def build(bug, place, owner, neg, variant=0) -> dict:
    models, opts, omap, state, pre, lines, ret = spec(bug, owner, neg, variant)
    names = [n for n, _ in models]
    snames = [n for n, _ in state]
    files = {"models.py": MODELS % ("self.h.detach()" if neg else "self.h")}
    head = ["import torch", "import torch.nn.functional as F", "", "from models import Net, StatefulCell"]
    if state:
        files["metrics.py"] = METRICS
        head.append("from metrics import AverageMeter, Logger")
    data = "data = [(torch.randn(4, 3), torch.randn(4, 1), torch.randn(4, 2)) for _ in range(3)]"
    x0 = ["x0 = torch.randn(4, 3)"] if bug == "prebuilt" else []
    caller_last = None
    if place == "stepret" and owner == "caller":
        caller_last = omap[[w.split(" ")[1] for w in lines if w.startswith("STEP")][-1]]
    # logical optimizer names in the lines -> real names
    lines = [" ".join([w[0], omap[w[1]]] + w[2:]) if w[0] in ("ZERO", "STEP") else " ".join(w)
             for w in (ln.split(" ") if ln.split(" ")[0] in ("ZERO", "STEP", "BW") else [ln] for ln in lines)]
    kw = ", retain_graph=True"

    def plain_bw(n, r):
        return f"{n}.backward({kw[2:] if r else ''})"

    if place in ("flat", "accel", "stepret"):
        ref = {n: n for n in names + snames + ["x0"]}
        ref.update({n: n for n, _ in pre})
        make = [f"{n} = {e}" for n, e in models] + [f"{o} = torch.optim.SGD({params(p, str)}, lr=0.1)"
                                                     for o, p in opts.items()]
        setup = [f"{n} = {e.format(**ref)}" for n, e in pre]
        inits = [f"{n} = {e}" for n, e in state]
        if place == "accel":
            bw = (lambda n, r: f"accelerator.backward({n}{kw if r else ''})")
            every = names + list(opts)
            make += ["accelerator = Accelerator(cpu=True)",
                     f"{', '.join(every)} = accelerator.prepare({', '.join(every)})"]
            head.append("from accelerate import Accelerator")
        else:
            bw = plain_bw
        step = render(lines, ref, str, bw, caller_last)
        if place == "stepret":
            args = names + list(opts) + ["x", "y", "z"] + snames + [n for n, _ in pre] \
                + (["x0"] if x0 and not pre else [])
            files["steps.py"] = "\n".join(head + ["", "", f"def train_step({', '.join(args)}):"]
                                          + ind(step + [f"return {ret}"], 1)) + "\n"
            loop = ["for x, y, z in data:", f"    out = train_step({', '.join(args)})"] \
                + ([f"    {caller_last}.step()"] if caller_last else []) + ["    log.append(out.item())"]
            body = ["torch.manual_seed(0)"] + make + [data] + x0 + setup + inits + ["log = []"] + loop \
                + ["print(sum(log))"]
            main = head[:2] + ["", "from models import Net, StatefulCell"] \
                + (["from metrics import AverageMeter, Logger"] if state else []) + ["from steps import train_step"]
        else:
            body = ["torch.manual_seed(0)"] + make + [data] + x0 + setup + inits + ["for x, y, z in data:"] \
                + ind(step, 1) + [f"print(float({ret}))"]
            main = head
        main = main + ["", "", "def main():"] + ind(body, 1)
    elif place in ("dicts", "dictargs"):
        mref = {n: f'self.models["{n}"]' for n in names}
        ref = dict(mref, x0="self.x0", **{n: f"self.{n}" for n in snames}, **{n: f"self.{n}" for n, _ in pre})
        init = [f"self.models = {{{', '.join(f'{chr(34)}{n}{chr(34)}: {n}' for n in names)}}}", "self.optims = {"] \
            + [f'    "{o}": torch.optim.SGD({params(p, mref.get if place == "dicts" else str)}, lr=0.1),'
               for o, p in opts.items()] + ["}"] \
            + (["self.x0 = x0"] if x0 else []) + [f"self.{n} = {e.format(**ref)}" for n, e in pre] \
            + [f"self.{n} = {e}" for n, e in state]
        step = render(lines, ref, lambda o: f'self.optims["{o}"]', plain_bw)
        files["trainer.py"] = "\n".join(head + ["", "", "class Trainer:"]
                                        + ind([f"def __init__(self, {', '.join(names + (['x0'] if x0 else []))}):"], 1)
                                        + ind(init, 2) + ["", "    def step(self, x, y, z):"]
                                        + ind(step + [f"return {ret}.item()"], 2)) + "\n"
        body = ["torch.manual_seed(0)"] + [f"{n} = {e}" for n, e in models] + x0 \
            + [f"tr = Trainer({', '.join(names + (['x0'] if x0 else []))})", data, "total = 0.0",
               "for x, y, z in data:", "    total += tr.step(x, y, z)", "print(total)"]
        main = head[:2] + ["", "from models import Net, StatefulCell", "from trainer import Trainer", "", "",
                           "def main():"] + ind(body, 1)
    else:  # lightning
        ref = {n: f"self.{n}" for n in names + snames + ["x0"]}
        ref.update({n: f"self.{n}" for n, _ in pre})
        init = ["super().__init__()", "self.automatic_optimization = False"] \
            + [f"self.{n} = {e}" for n, e in models] + [f"self.{n} = {e}" for n, e in state] \
            + (["self.x0 = torch.randn(4, 3)"] if x0 else []) + [f"self.{n} = {e.format(**ref)}" for n, e in pre]
        conf = [f"return [{', '.join(f'torch.optim.SGD({params(p, ref.get)}, lr=0.1)' for p in opts.values())}]"]
        handles = [f"{', '.join(opts)} = self.optimizers()"]
        step = handles + ["x, y, z = batch"] + render(lines, ref, str,
                                                      lambda n, r: f"self.manual_backward({n}{kw if r else ''})")
        files["module.py"] = "\n".join(head + ["import pytorch_lightning as pl", "", "",
                                               "class Module(pl.LightningModule):"]
                                       + ind(["def __init__(self):"], 1) + ind(init, 2)
                                       + ["", "    def configure_optimizers(self):"] + ind(conf, 2)
                                       + ["", "    def training_step(self, batch, batch_idx):"] + ind(step, 2)) + "\n"
        body = ["torch.manual_seed(0)", "m = Module()",
                "loader = DataLoader(TensorDataset(torch.randn(12, 3), torch.randn(12, 1), torch.randn(12, 2)),"
                " batch_size=4)",
                "trainer = pl.Trainer(max_epochs=1, logger=False, enable_checkpointing=False, "
                "enable_progress_bar=False,",
                "                     enable_model_summary=False, accelerator='cpu', devices=1)",
                "trainer.fit(m, loader)", "print(sum(float(p.sum()) for p in m.parameters()))"]
        main = ["import torch", "import pytorch_lightning as pl",
                "from torch.utils.data import DataLoader, TensorDataset",
                "", "from module import Module", "", "", "def main():"] + ind(body, 1)
    main += ["", "", 'if __name__ == "__main__":', "    main()", ""]
    files["main.py"] = "\n".join(main)
    return files
