"""Generated real-code shapes, each checked the way fixcheck.py checks its cases.

Each shape is a small project (main.py and sibling modules) composed from
independent axes:

- bug: `gan` (D step on an un-detached fake, then a G step), `accum` (a loss
  summed across iterations with its graph), `rnn` (recurrent state carried
  across batches), `trunk` (a second backward through a shared trunk);
- placement: `flat` script, `func` (a `train(...)` loop in train.py),
  `trainer` (a class building its optimizers in `__init__`, one step per
  call), `stepfn` (a step function in steps.py called from main's loop);
- loss: `inline`, or `tuple` (losses.py returns `(loss, loss.item())`, the
  float summed for logging);
- backward: `plain`, `autograd` (`torch.autograd.backward`), `scaler` (an
  AMP GradScaler stand-in in amp.py), `closure` (`optimizer.step(closure)`);
- optimizers: `per-model`, `one` (one optimizer over every model), `groups`
  (one optimizer, a param group per model or part), `caller` (per model, the
  last step taken by the step function's caller);
- negative: the user's cut (or retain) is already there: nothing may be
  reported with a safe fix.

Every combination that makes sense is generated (deterministically), then
`--limit N` keeps N of them chosen with a seeded shuffle. Each is run by
fixcheck.check (reference with retain_graph=True everywhere, and the copy
fixed by `autodetach --fix --unsafe-fixes`); the JSON printed per shape
gives its result, and for negatives the findings. `bug` in the summary
counts mismatches, safe fixes on negatives and crashes of the tool.

`--family more` (or `all`, the default) adds shapes_more.py's: other bugs
(AD108, AD104, AD106, AD107, AD102), placements (Lightning manual
optimisation, Accelerate, models and optimizers in dicts, a step function
returning its loss) and owners (param groups covering part of a model).

    python benchmarks/shapes.py [--family F] [--limit N] [--seed S] [-j N] [--only SUBSTR] [--write DIR]
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixcheck  # noqa: E402
import shapes_more  # noqa: E402

BUGS = ("gan", "accum", "rnn", "trunk")
PLACES = ("flat", "func", "trainer", "stepfn")
LOSSES = ("inline", "tuple")
BACKWARDS = ("plain", "autograd", "scaler", "closure")
OWNERS = ("per-model", "one", "groups", "caller")

MODELS = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.a = nn.Linear(i, 6)
        self.b = nn.Linear(6, o)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x)))


class Cell(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 5)
        self.b = nn.Linear(5, 1)

    def forward(self, x, h):
        h = torch.tanh(self.a(torch.cat([x, h], 1)))
        return self.b(h), h
'''

LOSSES_PY = '''import torch.nn.functional as F


def mse(out, target):
    loss = F.mse_loss(out, target)
    return loss, loss.item()


def bce(logits, target):
    loss = F.binary_cross_entropy_with_logits(logits, target)
    return loss, loss.item()
'''

AMP_PY = '''class GradScaler:
    """A stand-in for torch.amp.GradScaler (scale 1)."""

    def __init__(self):
        self._scale = 1.0

    def scale(self, loss):
        return loss * self._scale

    def step(self, optimizer):
        return optimizer.step()

    def update(self):
        pass
'''

UTILS_WORKS = '''def repackage_hidden(h):
    return h.detach()
'''

UTILS_NOOP = '''def repackage_hidden(h):
    """Kept for old checkpoints; does nothing now."""
    return h
'''


class Phase:
    """Some lines computing losses, their backwards, and one optimizer step."""

    def __init__(self, compute, losses, opt, retain_first=False, step=True, guard=None, reset=()):
        self.compute, self.losses, self.opt = compute, losses, opt
        self.retain_first, self.step = retain_first, step
        self.guard, self.reset = guard, list(reset)  # backward and step under `if guard:`, then `reset`


def models_of(bug):
    return {"gan": [("G", "Net(2, 3)"), ("D", "Net(3, 1)")], "accum": [("net", "Net(3, 1)")],
            "rnn": [("net", "Cell()")],
            "trunk": [("trunk", "Net(3, 4)"), ("head1", "Net(4, 1)"), ("head2", "Net(4, 1)")]}[bug]


def optimizers(bug, owner, m):
    """[(name, expression)] and the name each logical optimizer maps to."""
    def params(*models):
        return " + ".join(f"list({m[x]}.parameters())" for x in models)
    if bug in ("accum", "rnn"):
        if owner == "groups":
            n = m["net"]
            return [("opt", f'torch.optim.SGD([{{"params": {n}.a.parameters()}}, '
                            f'{{"params": {n}.b.parameters(), "lr": 0.05}}], lr=0.1)')], {"opt": "opt"}
        return [("opt", f"torch.optim.SGD({m['net']}.parameters(), lr=0.1)")], {"opt": "opt"}
    groups = {"gan": [("optG", ("G",)), ("optD", ("D",))],
              "trunk": [("optA", ("trunk", "head1")), ("optB", ("head2",))]}[bug]
    if owner in ("per-model", "caller"):
        return [(o, f"torch.optim.SGD({params(*ms)}, lr=0.1)") for o, ms in groups], {o: o for o, _ in groups}
    if owner == "one":
        every = [x for _, ms in groups for x in ms]
        return [("opt", f"torch.optim.SGD({params(*every)}, lr=0.1)")], {o: "opt" for o, _ in groups}
    pg = ", ".join(("{" + f'"params": {params(*ms)}' + (', "lr": 0.05' if i else "") + "}")
                   for i, (_, ms) in enumerate(groups))
    return [("opt", f"torch.optim.SGD([{pg}], lr=0.1)")], {o: "opt" for o, _ in groups}


def loss_line(loss, name, fn, out, target):
    if loss == "inline":
        return [f"{name} = F.{'mse_loss' if fn == 'mse' else 'binary_cross_entropy_with_logits'}({out}, {target})"]
    return [f"{name}, {name}_stat = losses.{fn}({out}, {target})", f"{{stats}} += {name}_stat"]


def body(bug, loss, owner, neg, variant):
    """(state [(name, init)], pre lines, phases, post lines); names in braces are filled per placement."""
    if bug == "gan":
        # v1: retain_graph=True on the D backward instead of the cut (negative), or on both (positive: the
        # second retain is unneeded)
        fake = "{fake}.detach()" if neg and not variant else "{fake}"
        pre = ["{fake} = {G}(z)"]
        d = (loss_line(loss, "d_real", "bce", "{D}(x)", "torch.ones(4, 1)")
             + loss_line(loss, "d_fake", "bce", "{D}(%s)" % fake, "torch.zeros(4, 1)") + ["d_loss = d_real + d_fake"])
        g = loss_line(loss, "g_loss", "bce", "{D}({fake})", "torch.ones(4, 1)")
        one = owner in ("one", "groups")  # the D step also updates G: only a fresh fake is correct
        if neg and variant and one:
            g = ["{fake} = {G}(z)"] + g
        return [], pre, [Phase(d, ["d_loss"], "{optD}", retain_first=bool(variant) and not (neg and one)),
                         Phase(g, ["g_loss"], "{optG}", retain_first=bool(variant) and not neg)], []
    if bug == "accum":
        c = loss_line(loss, "loss", "mse", "{net}(x)", "y")
        if variant:  # gradient accumulation: the sum is backwarded every 3rd batch (negative), or also logged
            c += ["{total} = {total} + loss", "{seen} += 1"] + (["{logged} += {total}"] if not neg else [])
            state = [("total", "0.0"), ("seen", "0")] + ([] if neg else [("logged", "0.0")])
            return state, [], [Phase(c, ["{total}"], "{opt}", guard="{seen} % 3 == 0", reset=["{total} = 0.0"])], []
        return [("total", "0.0")], [], [Phase(c, ["loss"], "{opt}")], \
            ["{total} += loss.item()" if neg else "{total} += loss"]
    if bug == "rnn":
        pre = []
        if neg:
            pre = ["{h} = repackage_hidden({h})"] if variant % 2 else ["{h} = {h}.detach()"]
        elif variant % 2:
            pre = ["{h} = repackage_hidden({h})"]  # utils' version does nothing
        c = ["out, {h} = {net}(x, {h})"] + loss_line(loss, "loss", "mse", "out", "y")
        return [("h", "torch.zeros(4, 5)")], pre, [Phase(c, ["loss"], "{opt}")], []
    # trunk
    pre = ["feat = {trunk}(x)"]
    split = owner in ("per-model", "caller") or (owner == "one" and variant % 2)
    if split:
        cut = neg and owner != "one"
        l1 = loss_line(loss, "l1", "mse", "{head1}(feat)", "y")
        l2 = loss_line(loss, "l2", "mse", "{head2}(feat.detach())" if cut else "{head2}(feat)", "y")
        if neg and owner == "one":
            l2 = ["feat = {trunk}(x)"] + l2  # the step between updated the trunk: a fresh forward
        return [], pre, [Phase(l1, ["l1"], "{optA}"), Phase(l2, ["l2"], "{optB}")], []
    c = loss_line(loss, "l1", "mse", "{head1}(feat)", "y") + loss_line(loss, "l2", "mse", "{head2}(feat)", "y")
    return [], pre, [Phase(c, ["l1", "l2"], "{optA}", retain_first=neg)], []


def backward_line(bw, name, retain, self_prefix=""):
    kw = "retain_graph=True" if retain else ""
    if bw == "autograd":
        return f"torch.autograd.backward({name}{', ' + kw if kw else ''})"
    if bw == "scaler":
        return f"{self_prefix}scaler.scale({name}).backward({kw})"
    return f"{name}.backward({kw})"


def render_phases(phases, bw, caller, self_prefix):
    lines = []
    for k, ph in enumerate(phases):
        step = ph.step and not (caller and k == len(phases) - 1)
        bws = [backward_line(bw, n, ph.retain_first and i == 0, self_prefix) for i, n in enumerate(ph.losses)]
        if bw == "closure":
            lines.append(f"def closure{k}():")
            lines += ["    " + ln for ln in [f"{ph.opt}.zero_grad()"] + ph.compute + bws + [f"return {ph.losses[0]}"]]
            lines.append(f"{ph.losses[0]} = {ph.opt}.step(closure{k})")
            continue
        lines += ph.compute
        inner = [f"{ph.opt}.zero_grad()"] + bws
        if step:
            inner += [f"{self_prefix}scaler.step({ph.opt})", f"{self_prefix}scaler.update()"] if bw == "scaler" \
                else [f"{ph.opt}.step()"]
        lines += [f"if {ph.guard}:"] + ["    " + ln for ln in inner + ph.reset] if ph.guard else inner
    return lines


def valid(bug, place, loss, bw, owner, neg):
    if owner == "caller" and (place != "stepfn" or bw in ("closure", "scaler")):
        return False
    if bw == "closure" and bug in ("rnn", "gan"):
        return False  # state or a shared fake escaping the closure: not a shape people write
    if bw == "closure" and loss == "tuple" and place != "trainer":
        return False  # `stats += ...` inside the closure would need `nonlocal`
    if owner == "per-model" and bug in ("accum", "rnn"):
        return False  # the same program as `one`
    return True


def build(bug, place, loss, bw, owner, neg, variant=0) -> dict:
    """The project's files {name: text}."""
    model_names = [n for n, _ in models_of(bug)]
    state, pre, phases, post = body(bug, loss, owner, neg, variant)
    if loss == "tuple":
        state = state + [("stats", "0.0")]
    state_names = [n for n, _ in state]
    locals_ = ["fake"]
    caller = owner == "caller"
    self_ = "self." if place == "trainer" else ""
    names = {n: self_ + n for n in model_names + state_names}
    names.update({n: n for n in locals_})
    m = {n: self_ + n for n in model_names}
    opt_defs, opt_map = optimizers(bug, owner, m)
    names.update({logical: self_ + real for logical, real in opt_map.items()})
    opt_names = [o for o, _ in opt_defs]

    for ph in phases:
        ph.opt = ph.opt.format(**names)
        ph.compute, ph.losses, ph.reset = ([ln.format(**names) for ln in lines]
                                           for lines in (ph.compute, ph.losses, ph.reset))
        ph.guard = ph.guard and ph.guard.format(**names)
    step_lines = [ln.format(**names) for ln in pre] + render_phases(phases, bw, caller, self_) \
        + [ln.format(**names) for ln in post]
    data_x = {"gan": "torch.randn(4, 3)", "rnn": "torch.randn(4, 3)"}.get(bug, "torch.randn(4, 3)")
    files = {"models.py": MODELS}
    imports = ["import torch", "import torch.nn.functional as F", ""]
    extra = []
    if loss == "tuple":
        files["losses.py"] = LOSSES_PY
        extra.append("import losses")
    if bug == "rnn" and any("repackage_hidden" in ln for ln in pre):
        files["utils.py"] = UTILS_WORKS if neg else UTILS_NOOP
        extra.append("from utils import repackage_hidden")
    if bw == "scaler":
        files["amp.py"] = AMP_PY
        extra.append("from amp import GradScaler")
    header = imports + extra + ["from models import Net, Cell", ""]
    scaler_init = ["scaler = GradScaler()"] if bw == "scaler" else []
    data = f"data = [({data_x}, torch.randn(4, 1), torch.randn(4, 2)) for _ in range(3)]"
    models = [f"{n} = {e}" for n, e in models_of(bug)]
    opts = [f"{o} = {e}" for o, e in opt_defs]
    inits = [f"{n} = {e}" for n, e in state]
    show = " + ".join(f"float({n})" for n, _ in state if n not in ("h", "seen")) or "0.0"

    def ind(lines, n):
        return ["    " * n + ln if ln else "" for ln in lines]

    main = header[:]
    if place in ("flat", "func"):
        loop = ["for x, y, z in data:"] + ind(step_lines, 1)
        if place == "flat":
            main += ["", "def main():"] + ind(["torch.manual_seed(0)"] + models + opts + scaler_init + [data]
                                              + inits + loop + [f"print({show})"], 1)
        else:
            args = model_names + opt_names
            files["train.py"] = "\n".join(header + ["", f"def train({', '.join(args + ['data'])}):"]
                                          + ind(scaler_init + inits + loop + [f"return {show}"], 1)) + "\n"
            main = imports + ["from models import Net, Cell", "from train import train", "", "", "def main():"] \
                + ind(["torch.manual_seed(0)"] + models + opts + [data] + [f"print(train({', '.join(args)}, data))"],
                      1)
    elif place == "trainer":
        cls = ["", "class Trainer:"] + ind([f"def __init__(self, {', '.join(model_names)}):"], 1) \
            + ind([f"self.{n} = {n}" for n in model_names] + [f"self.{o} = {e}" for o, e in opt_defs]
                  + [f"self.{ln}" for ln in scaler_init + inits], 2) \
            + [""] + ind(["def step(self, x, y, z):"], 1) + ind(step_lines, 2)
        files["trainer.py"] = "\n".join(header + cls) + "\n"
        shown = " + ".join(f"float(tr.{n})" for n, _ in state if n not in ("h", "seen")) or "0.0"
        main = imports + ["from models import Net, Cell", "from trainer import Trainer", "", "", "def main():"] \
            + ind(["torch.manual_seed(0)"] + models + [f"tr = Trainer({', '.join(model_names)})", data,
                                                       "for x, y, z in data:", "    tr.step(x, y, z)",
                                                       f"print({shown})"], 1)
    else:  # stepfn
        args = model_names + opt_names + ["x", "y", "z"] + state_names
        ret = [f"return {', '.join(state_names)}"] if state_names else []
        files["steps.py"] = "\n".join(header + scaler_init + ["", "", f"def train_step({', '.join(args)}):"]
                                      + ind(step_lines + ret, 1)) + "\n"
        call = f"train_step({', '.join(args)})"
        call = f"{', '.join(state_names)} = {call}" if state_names else call
        last = phases[-1].opt if caller else None
        main = imports + ["from models import Net, Cell", "from steps import train_step", "", "", "def main():"] \
            + ind(["torch.manual_seed(0)"] + models + opts + [data] + inits + ["for x, y, z in data:", "    " + call]
                  + ([f"    {last}.step()"] if last else []) + [f"print({show})"], 1)
    main += ["", "", 'if __name__ == "__main__":', "    main()", ""]
    files["main.py"] = "\n".join(main)
    files = {k: v.replace("\n\n\n\n", "\n\n\n") for k, v in files.items()}
    return files


def shapes():
    out = []
    for bug, place, loss, bw, owner, neg in itertools.product(BUGS, PLACES, LOSSES, BACKWARDS, OWNERS, (False, True)):
        if not valid(bug, place, loss, bw, owner, neg):
            continue
        variants = (0, 1) if bug in ("rnn", "gan") or (bug == "trunk" and owner == "one") or \
            (bug == "accum" and bw != "closure" and owner != "caller") else (0,)
        for v in variants:
            name = "-".join([bug, place, loss, bw, owner, "neg" if neg else "pos"] + ([f"v{v}"] if len(variants) > 1
                                                                                  else []))
            out.append((name, dict(bug=bug, place=place, loss=loss, bw=bw, owner=owner, neg=neg, variant=v)))
    return out


def families(family):
    """(name, axes) of the base axes above, of shapes_more's, or both."""
    return (shapes() if family in ("base", "all") else []) + (shapes_more.shapes() if family in ("more", "all") else [])


def build_any(name, axes) -> dict:
    return shapes_more.build(**axes) if name.startswith("more-") else build(**axes)


def write(files: dict, folder: str) -> None:
    os.makedirs(folder, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(folder, name), "w") as fh:
            fh.write(text)


def static(todo, tmp) -> dict:
    """One autodetach run over every project (each its own folder): {name: (findings, errors)}."""
    for name, axes in todo:
        write(build_any(name, axes), os.path.join(tmp, name))
    rep = fixcheck.autodetach(["-j", "1", "."], tmp)
    out = {name: ([], []) for name, _ in todo}
    for f in rep.get("findings", []):
        name, rel = f["path"].split(os.sep, 1)
        out[name][0].append(f"{rel}:{f['line']} {f['code']} {f['fix']}")
    for line in rep.get("stderr", []):
        if "internal error" in line:  # `autodetach: NAME/file.py: internal error in rule ...`
            out[line.split(": ", 1)[1].split(os.sep, 1)[0]][1].append(line.split(": ", 2)[2][:200])
    if "error" in rep:
        raise SystemExit(f"autodetach failed: {rep['error']}")
    return out


def judge(name, axes, found, errors, tmp, timeout, run_all):
    """The shape's result; the runs (fixcheck.check) only where a fix could be wrong and labelled safe."""
    res = {"case": name, "found": found, "negative": axes["neg"]}
    if errors:
        res.update(result="crash", errors=errors, bug="crash")
        return res
    fixable = [f for f in found if not f.endswith(" none")]
    if not fixable:
        res["result"] = "no fix"
    elif any(f.endswith(" safe") for f in found) or run_all:
        res = dict(fixcheck.check(name, False, timeout, src=os.path.join(tmp, name), lean=True), negative=axes["neg"])
    else:
        res["result"] = "unsafe (not run)"
    if res.get("tool_errors"):
        res["bug"] = "crash"
    elif res.get("result") == "mismatch":
        res["bug"] = "mismatch"
    elif axes["neg"] and any(f.endswith(" safe") for f in res.get("found", [])):
        res["bug"] = "safe fix on a negative"
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0, help="keep N shapes (seeded shuffle); 0: all")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-j", type=int, default=1, help="shapes run at once")
    ap.add_argument("--only", default="", help="keep shapes whose name contains this")
    ap.add_argument("--family", default="all", choices=("base", "more", "all"),
                    help="the base axes (the 972 of session 22), shapes_more.py's, or both")
    ap.add_argument("--run-all", action="store_true", help="also run the shapes whose fixes are all unsafe")
    ap.add_argument("--write", help="write the projects to this folder and stop")
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args(argv)
    todo = [s for s in families(a.family) if a.only in s[0]]
    if a.limit:
        random.Random(a.seed).shuffle(todo)
        todo = sorted(todo[:a.limit])
    if a.write:
        for name, axes in todo:
            write(build_any(name, axes), os.path.join(a.write, name))
        print(json.dumps({"written": len(todo)}))
        return 0
    counts: dict = {"shapes": len(todo), "negatives": sum(ax["neg"] for _, ax in todo)}
    with tempfile.TemporaryDirectory(prefix="shapes-") as tmp:
        seen = static(todo, tmp)
        with ThreadPoolExecutor(max(1, a.j)) as pool:
            jobs = [(name, axes, *seen[name]) for name, axes in todo]
            for res in pool.map(lambda j: judge(*j, tmp, a.timeout, a.run_all), jobs):
                counts[res["result"]] = counts.get(res["result"], 0) + 1
                if res["negative"] and res.get("found"):
                    counts["negatives flagged"] = counts.get("negatives flagged", 0) + 1
                if "bug" in res:
                    counts["bug: " + res["bug"]] = counts.get("bug: " + res["bug"], 0) + 1
                print(json.dumps(res), flush=True)
    print(json.dumps({"summary": counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
