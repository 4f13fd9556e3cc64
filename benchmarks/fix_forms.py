"""Generated programs against the retain_graph reference: are the safe fixes safe?

The same few training programs are written out many times, each time with
one expression changed: the way a later loss reads a tensor of the graph
(`abs(out)`, `out.view(-1)`, `Output(out).logits`, `utils.scale(out)`, ...:
benchmarks/fix_forms/forms.json, "reads"), or the way a second backward
reaches it (`hooks[0](out)`, `Aux()(out)`, `opt.step(lambda: ...)`, ...:
"second_backwards"). Every program is a small project (`main.py` and a
`utils.py` it imports) under one temporary tree, reported on by one
`autodetach --select ALL` run. Then, for the programs with a safe AD1 fix
(all of them with `--run 0`, else that many spread evenly), the reference
(the program with `retain_graph=True` on every backward) and the fixed
program (`autodetach --fix`, safe fixes only) are run and their printed
parameters compared: `match`, `mismatch` (a safe fix changed what trains or
crashed), or `no reference` (the reference itself fails).

    python benchmarks/fix_forms.py [--run N] [--keep DIR]

Prints JSON: findings per template, rule and fix safety; the safe fixes run
and their results; `mismatch` lists what must be empty.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

HEAD = '''import copy, functools, operator, os, sys, types
import torch
import torch.nn.functional as F
import helpers
import utils

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "3"))


def helper_mul(t):
    return t * 2


def helper_list(t):
    return [t, t * 2]


def aux_backward(t):
    (t ** 2).mean().backward()


def aux_fn(t):
    return (t ** 2).mean()


def call_with(fn, *args):
    return fn(*args)


def yield_back(t):
    def gen():
        yield t
    for v in gen():
        v.mean().backward()


def nonlocal_backward(t):
    box = None

    def put():
        nonlocal box
        box = t
    put()
    box.mean().backward()


class Wrap:
    def __init__(self, t):
        self.t = t


class Holder:
    def __init__(self, t):
        self._t = t

    def get(self):
        return self._t


class Aux:
    def run(self, t):
        t.mean().backward()

    def __call__(self, t):
        t.sum().backward()


aux_obj = Aux()
hooks = [aux_backward]
handlers = {"aux": aux_backward}
later = []
STORE = []
state = types.SimpleNamespace()


def num(v):
    if isinstance(v, dict):
        v = list(v.values())
    if isinstance(v, (list, tuple)):
        return sum(num(t) for t in v)
    return torch.as_tensor(v).double().sum().item()
'''

UTILS = '''import torch


def scale(t):
    return t * 3


def pack(t):
    return {"t": t, "n": 1}


class Box:
    def __init__(self, v):
        self.value = v


def aux_backward(t):
    (t ** 2).mean().backward()


def aux_fn(t):
    return (t ** 2).mean()
'''

# {E}: a read of the tensor named by VAR; {S}: a second backward's statements
TEMPLATES = {
    "retain_then_read": ("out", '''model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(ITERS):
    out = model(torch.randn(8, 3))
    opt.zero_grad()
    (out ** 2).mean().backward(retain_graph=True)
    loss2 = ({E}).mean()
    loss2.backward()
    opt.step()
print(f"{{model.weight.sum().item():.6f}} {{model.bias.sum().item():.6f}}")
'''),
    "retain_in_step_function": ("out", '''def train_step(model, opt, x):
    out = model(x)
    opt.zero_grad()
    loss = (out ** 2).mean()
    loss.backward(retain_graph=True)
    aux = ({E}).mean()
    aux.backward()
    opt.step()
    return loss.item()


net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
for step in range(ITERS):
    train_step(net, optimizer, torch.randn(8, 3))
print(f"{{sum(p.sum().item() for p in net.parameters()):.6f}}")
'''),
    "sum_backwarded": ("out", '''model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = torch.zeros(())
for step in range(ITERS):
    out = model(torch.randn(8, 3))
    loss = (out ** 2).mean()
    total = total + ({E}).mean()
    opt.zero_grad()
    (loss + 0.01 * total).backward()
    opt.step()
print(f"{{model.weight.sum().item():.6f}} {{model.bias.sum().item():.6f}}")
'''),
    "carried_retained": ("prev", '''model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
prev = torch.zeros(8, 1)
for step in range(ITERS):
    out = model(torch.randn(8, 3)) + 0.5 * ({E}).mean()
    loss = (out ** 2).mean()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
    prev = out
print(f"{{model.weight.sum().item():.6f}} {{model.bias.sum().item():.6f}}")
'''),
    "gan_two_optimizers": ("fake", '''G = torch.nn.Linear(2, 3)
D = torch.nn.Linear(3, 1)
opt_g = torch.optim.SGD(G.parameters(), lr=0.05)
opt_d = torch.optim.SGD(D.parameters(), lr=0.05)
for step in range(ITERS):
    fake = G(torch.randn(8, 2))
    opt_d.zero_grad()
    d_loss = (D(fake) ** 2).mean()
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = (D(fake) - 1).pow(2).mean() + 0.1 * ({E}).mean()
    g_loss.backward()
    opt_g.step()
print(f"{{sum(p.sum().item() for p in G.parameters()):.6f}} {{sum(p.sum().item() for p in D.parameters()):.6f}}")
'''),
    "gan_one_optimizer": ("fake", '''G = torch.nn.Linear(2, 3)
D = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(list(G.parameters()) + list(D.parameters()), lr=0.05)
for step in range(ITERS):
    fake = G(torch.randn(8, 2))
    opt.zero_grad()
    d_loss = (D(fake) ** 2).mean()
    d_loss.backward()
    opt.step()
    opt.zero_grad()
    g_loss = (D(fake) - 1).pow(2).mean() + 0.1 * ({E}).mean()
    g_loss.backward()
    opt.step()
print(f"{{sum(p.sum().item() for p in G.parameters()):.6f}} {{sum(p.sum().item() for p in D.parameters()):.6f}}")
'''),
    "second_backward": ("out", '''model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(ITERS):
    out = model(torch.randn(8, 3))
    opt.zero_grad()
    (out ** 2).mean().backward(retain_graph=True)
    {S}
    opt.step()
print(f"{{model.weight.sum().item():.6f}} {{model.bias.sum().item():.6f}}")
'''),
}


def load_templates() -> dict:
    """The templates of fix_forms/templates/: a header `# template: var=V hole=read|backward`, then
    `# ref: OLD => NEW` lines the reference applies (the cut the fix is meant to make), and one hole,
    `@E@` (a read of V) or `@S@` (a second backward's statements)."""
    found = {}
    folder = os.path.join(HERE, "fix_forms", "templates")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        text = open(os.path.join(folder, name)).read()
        head = re.match(r"# template: var=(?P<var>.+) hole=(?P<hole>\w+)$", text.splitlines()[0]).groupdict()
        refs = [tuple(part.strip() for part in line[len("# ref: "):].split(" => ", 1))
                for line in text.splitlines() if line.startswith("# ref: ")]
        found[name[:-3]] = {"var": head["var"], "hole": head["hole"], "text": text, "ref": refs}
    return found


def _indented(form: str, text: str, hole: str) -> str:
    """A statements form is written for a loop body at 4 spaces; put it at the hole's indent."""
    indent = re.search(r"^( *)" + re.escape(hole), text, re.M).group(1)
    lines = form.split("\n")
    return "\n".join([lines[0]] + [indent + line[4:] for line in lines[1:]])


def write_tree(root: str, only=None, every=1) -> dict:
    forms = json.load(open(os.path.join(HERE, "fix_forms", "forms.json")))
    forms["reads"] = forms["reads"][::every]
    helpers = open(os.path.join(HERE, "fix_forms", "helpers.py")).read()
    variants_of = {}
    for name, (var, text) in TEMPLATES.items():
        if name == "second_backward":
            variants_of[name] = [(s, text.format(S=s, E=""), []) for s in forms["second_backwards"]]
        else:
            variants_of[name] = [(e, text.format(E=re.sub(r"\bX\b", var, e), S=""), []) for e in forms["reads"]]
    for name, t in load_templates().items():
        if t["hole"] == "backward":
            variants_of[name] = [(s, t["text"].replace("@S@", _indented(s, t["text"], "@S@")), t["ref"])
                                 for s in forms["second_backwards"]]
        else:
            variants_of[name] = [(e, t["text"].replace("@E@", re.sub(r"\bX\b", lambda m: t["var"], e)), t["ref"])
                                 for e in forms["reads"]]
    index = {}
    for name, variants in variants_of.items():
        if only and not any(re.search(pat, name) for pat in only):
            continue
        for i, (form, body, refs) in enumerate(variants):
            case = f"{name}_{i:03d}"
            os.makedirs(os.path.join(root, case))
            with open(os.path.join(root, case, "main.py"), "w") as fh:
                fh.write(HEAD + "\n\n" + body)
            with open(os.path.join(root, case, "utils.py"), "w") as fh:
                fh.write(UTILS)
            with open(os.path.join(root, case, "helpers.py"), "w") as fh:
                fh.write(helpers)
            index[case] = {"template": name, "form": form, "ref": refs}
    return index


def _autodetach(args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "autodetach", *args], cwd=cwd, capture_output=True, text=True)


def _last_line(proc) -> str:
    if proc.returncode == 0:
        lines = proc.stdout.strip().splitlines()
        return lines[-1] if lines else ""
    lines = proc.stderr.strip().splitlines()
    return "error: " + (lines[-1][:160] if lines else f"exit {proc.returncode}")


def _run(folder: str) -> tuple:
    proc = subprocess.run([sys.executable, "main.py"], cwd=folder, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, AUTODETACH_ITERS="3", PYTHONWARNINGS="ignore"))
    return proc.returncode, _last_line(proc)


def check(case_dir: str, work: str, refs=()) -> dict:
    ref, fixed = os.path.join(work, "ref"), os.path.join(work, "fixed")
    shutil.copytree(case_dir, ref)
    shutil.copytree(case_dir, fixed)
    for name in ("main.py", "helpers.py"):
        path = os.path.join(ref, name)
        with open(path) as fh:
            text = re.sub(r"\.backward\(\)", ".backward(retain_graph=True)", fh.read())
        if name == "main.py":
            for old, new in refs:
                lines = text.split("\n")
                assert any(old in line and not line.lstrip().startswith("#") for line in lines), old
                text = "\n".join(line if line.lstrip().startswith("#") else line.replace(old, new) for line in lines)
        with open(path, "w") as fh:
            fh.write(text)
    _autodetach(["--no-cache", "--select", "ALL", "--fix", "-q", fixed])
    (rc_ref, out_ref), (rc_fix, out_fix) = _run(ref), _run(fixed)
    result = "no reference" if rc_ref else ("match" if (rc_fix, out_fix) == (rc_ref, out_ref) else "mismatch")
    return {"result": result, "reference": out_ref, "fixed": out_fix}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", type=int, default=24, help="safe fixes to run (0: all)")
    ap.add_argument("--keep", help="write the programs here instead of a temporary folder")
    ap.add_argument("--every", type=int, default=1, help="every Nth read form only")
    ap.add_argument("--only", action="append", help="templates whose name matches this regex (repeatable)")
    args = ap.parse_args(argv)
    root = args.keep or tempfile.mkdtemp(prefix="autodetach-forms-")
    tree = os.path.join(root, "cases")
    shutil.rmtree(tree, ignore_errors=True)
    index = write_tree(tree, args.only, args.every)
    out_json = os.path.join(root, "report.json")
    _autodetach(["--no-cache", "--select", "ALL", "--output-format", "json", "-o", out_json, tree])
    report = json.load(open(out_json))
    counts, safe = Counter(), {}
    for f in report["findings"]:
        case = os.path.basename(os.path.dirname(f["path"]))
        if not f["code"].startswith("AD1") or os.path.basename(f["path"]) != "main.py":
            continue
        counts[f"{index[case]['template']} {f['code']} {f['fix']}"] += 1
        if f["fix"] == "safe":
            safe.setdefault(case, []).append(f"{f['code']}@{f['line']}")
    chosen = sorted(safe)
    if args.run and len(chosen) > args.run:
        step = len(chosen) / args.run
        chosen = [chosen[int(i * step)] for i in range(args.run)]
    runs = {}
    for n, case in enumerate(chosen, 1):
        print(f"[{n}/{len(chosen)}] {case}", file=sys.stderr)
        runs[case] = dict(index[case], fixes=safe[case], **check(os.path.join(tree, case),
                                                                   os.path.join(root, "runs", case), index[case]["ref"]))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps({
        "benchmark": "fix_forms",
        "programs": len(index),
        "errors": len(report["errors"]),
        "findings": dict(sorted(counts.items())),
        "safe_fix_programs": len(safe),
        "ran": len(runs),
        "results": dict(Counter(r["result"] for r in runs.values())),
        "mismatch": {c: r for c, r in runs.items() if r["result"] == "mismatch"},
        "runs": runs,
    }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
