"""fix_scaling: the cost of --fix against the cost of reporting, for one
generated legacy file (PyTorch 0.3 idioms, about one fix per 7 lines) of
growing length. The fix time should grow like the report time.

    python benchmarks/fix_scaling.py [--lines 1000,5000,20000]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit  # noqa: E402

HEADER = "import torch\nfrom torch.autograd import Variable\n"
# Legacy idioms the AD2xx rules fix: Variable wrappers, .data, volatile,
# retain_variables, legacy reductions.
CHUNK = '''

def step_{k}(model, x, y, opt):
    inp = Variable(x.data)
    with_target = Variable(y, requires_grad=False)
    out = model(inp)
    loss = ((out - with_target) ** 2).mean()
    opt.zero_grad()
    loss.backward(retain_variables=True)
    opt.step()
    value = loss.data[0]
    probe = Variable(x, volatile=True)
    return value, model(probe)
'''


def make(lines: int) -> str:
    parts = [HEADER]
    n = 0
    k = 0
    while n < lines:
        chunk = CHUNK.format(k=k)
        parts.append(chunk)
        n += chunk.count("\n")
        k += 1
    return "".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", default="1000,5000,20000")
    args = ap.parse_args()
    from autodetach.engine import Options, process_bytes
    from autodetach.registry import select_rules

    rules = select_rules()
    rows = []
    for n in [int(x) for x in args.lines.split(",")]:
        data = make(n).encode()
        t0 = time.perf_counter()
        rep = process_bytes(data, "gen.py", rules, Options())
        t1 = time.perf_counter()
        fix = process_bytes(data, "gen.py", rules, Options(fix=True))
        t2 = time.perf_counter()
        rows.append({
            "lines": data.count(b"\n"), "findings": len(rep.findings), "fixed": fix.fixed,
            "left_after_fix": len(fix.findings), "report_s": round(t1 - t0, 3),
            "fix_s": round(t2 - t1, 3), "fix_over_report": round((t2 - t1) / max(t1 - t0, 1e-9), 2),
        })
    emit({"benchmark": "fix_scaling", "rows": rows})


if __name__ == "__main__":
    main()
