"""The CLI run in this process, as a user would run it, with its exit code
and output captured (one helper for every test file that needs it)."""
import os
from dataclasses import dataclass

from click.testing import CliRunner

from autodetach.cli import main


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def lines(self):
        return self.out.splitlines()


def invoke(args, cwd=None, env=None) -> Result:
    """`autodetach ARGS` in directory `cwd` (with `env` added to the
    environment); never raises SystemExit."""
    args = [str(a) for a in args]
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        with CliRunner().isolation(env=env) as (out, err, _):
            try:
                main(args)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            stdout = out.getvalue().decode("utf-8", "surrogateescape")
            stderr = err.getvalue().decode("utf-8", "replace")
    finally:
        os.chdir(old)
    return Result(code, stdout, stderr)
