"""Helpers to run corpus scripts in fresh interpreters."""
import os
import re
import subprocess
import sys
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "corpus")
# Training frameworks some cases run under (the test extra installs them);
# without one, the runs of those cases are skipped, never their analysis.
FRAMEWORKS = ("pytorch_lightning", "lightning", "accelerate", "torchmetrics")
_IMPORT = re.compile(r"^(?:import|from)\s+(\w+)", re.M)
_EXPECT = re.compile(r"^#\s*expect-before:\s*(?P<kind>runs|error|grows|differs)\s*(?P<detail>.*)$", re.M)


@dataclass
class Case:
    code: str
    name: str
    before: str
    after: str  # may not exist: a negative case

    @property
    def positive(self) -> bool:
        return os.path.exists(self.after)

    @property
    def report_only(self) -> bool:
        """`flag_<case>.py`: must be reported, has no fix."""
        return self.name.startswith("flag_")

    def missing(self) -> list:
        """The frameworks the case imports that are not installed."""
        import importlib.util

        with open(self.before, encoding="utf-8") as fh:
            wanted = {m for m in _IMPORT.findall(fh.read()) if m in FRAMEWORKS}
        return sorted(m for m in wanted if importlib.util.find_spec(m) is None)

    def skip_if_missing(self) -> None:
        missing = self.missing()
        if missing:
            import pytest

            pytest.skip(f"{self.code}/{self.name} runs under {', '.join(missing)}, which is not installed "
                        "(pip install -e '.[test]')")

    def expectation(self):
        with open(self.before, encoding="utf-8") as fh:
            m = _EXPECT.search(fh.read())
        if not m:
            return ("runs", "")
        return m.group("kind"), m.group("detail").strip()


def cases(prefix: str = "AD"):
    out = []
    for code in sorted(os.listdir(CORPUS)):
        d = os.path.join(CORPUS, code)
        if not (code.startswith(prefix) and os.path.isdir(d)):
            continue
        for f in sorted(os.listdir(d)):
            sub = os.path.join(d, f)
            if os.path.isdir(sub) and os.path.exists(os.path.join(sub, "train.py")):
                # a multi-file case: <case>/train.py (+ train.fixed.py) and the
                # project files it imports (losses.py, utils.py), which are not cases
                out.append(Case(code, f, os.path.join(sub, "train.py"), os.path.join(sub, "train.fixed.py")))
                continue
            if f.endswith(".py") and not f.endswith(".fixed.py"):
                name = f[:-3]
                out.append(Case(code, name, os.path.join(d, f), os.path.join(d, name + ".fixed.py")))
    return out


def run_script(path: str, timeout: int = 180, args=()):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "PYTHONPATH", "TMPDIR")}
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0",
               CUDA_VISIBLE_DEVICES="", PYTHONWARNINGS="ignore")
    if os.environ.get("AUTODETACH_TEST_FRESH") != "1":
        # A fork of a parent that imported torch once (seconds saved per run).
        from autodetach.verify.probe import run_plain

        return run_plain(path, timeout=timeout, args=args, env=env)
    return subprocess.run([sys.executable, path, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=os.path.dirname(path), env=env)
