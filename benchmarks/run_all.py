"""Run every benchmark and print one JSON object holding all of them.

    python benchmarks/run_all.py [CORPUS] [--quick] [--full]

Defaults finish in about 15 minutes on a 2-core machine (most of it TorchFix);
--quick shrinks every sample, --full uses the issue's sizes (50k-file trees).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benefit  # noqa: E402
import cache_bench  # noqa: E402
import ci_bench  # noqa: E402
import scaling  # noqa: E402
import stages  # noqa: E402
import throughput  # noqa: E402
import verify_bench  # noqa: E402

PLANS = {
    "quick": {"throughput": ["--files", "30"], "stages": ["--files", "20"],
              "scaling": ["--sizes", "25,100", "--lines", "1000,5000"], "cache": ["--files", "30"],
              "verify": ["--cases", "2"], "benefit": ["--iters", "10,50"], "ci": ["--files", "1000", "--repeat", "1"]},
    "default": {"throughput": ["--files", "300"], "stages": ["--files", "200"],
                "scaling": ["--sizes", "1000,10000", "--pool", "500", "--lines", "1000,5000,20000"],
                "cache": ["--files", "0"], "verify": ["--cases", "3"], "benefit": [], "ci": ["--repeat", "2"]},
    "full": {"throughput": ["--files", "0", "--repeat", "3"], "stages": ["--files", "0"],
             "scaling": ["--sizes", "1000,10000,50000", "--pool", "2000"], "cache": ["--files", "0"],
             "verify": ["--cases", "0"], "benefit": [], "ci": ["--repeat", "3"]},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--only", help="comma-separated benchmark names")
    a = ap.parse_args()
    plan = PLANS["quick" if a.quick else "full" if a.full else "default"]
    corpus = [a.corpus] if a.corpus else []
    mods = {"throughput": throughput, "stages": stages, "scaling": scaling, "cache": cache_bench,
            "verify": verify_bench, "benefit": benefit, "ci": ci_bench}
    out = {"python": sys.version.split()[0], "cpus": os.cpu_count()}
    for name, mod in mods.items():
        if a.only and name not in a.only.split(","):
            continue
        args = (corpus if name not in ("verify", "benefit") else []) + plan[name]
        t = time.perf_counter()
        try:
            out[name] = mod.main(args)
        except Exception as exc:  # one broken benchmark does not hide the others
            out[name] = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-600:]}
        out[name]["benchmark_seconds"] = round(time.perf_counter() - t, 1)
        print(f"[run_all] {name} done in {out[name]['benchmark_seconds']} s", file=sys.stderr, flush=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
