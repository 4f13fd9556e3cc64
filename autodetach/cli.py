"""The command line. Conventions follow ruff, which users already know.

Exit codes: 0 nothing left to report; 1 findings remain (or --diff has a
diff); 2 usage or configuration error, an internal error on some file, or a
file that could not be read or written; 130 (SIGINT, Ctrl-C) or 143 (SIGTERM)
--verify was interrupted: its runs were stopped and the report was still
written, the rewrites not verified marked `interrupted` (a second signal
ends at once, 130, without a report). Every error is one line on stderr,
never a traceback."""
from __future__ import annotations

import os
import signal
import sys
import threading
from dataclasses import dataclass
from typing import Optional

import click

from . import __version__, output
from .config import ConfigError, load
from .discovery import iter_files
from .registry import SelectionError, all_rules, by_code, select_rules, validate
from .cache import dir_for as cache_dir_for
from .runner import Settings, run

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
MACHINE_FORMATS = ("json", "sarif", "github", "gitlab")

AD000_PAGE = """# AD000: syntax-error

Not a rule: autodetach reports a file it cannot decode or parse (a syntax
error, a Python 2 file, bytes that are not valid in the file's encoding) as
AD000, with the parser's line and message. The file is left untouched and
the other files are still checked. Files that contain none of the selected
rules' tokens are never parsed, so their syntax errors are not reported.
"""


def _split(values) -> list:
    out = []
    for v in values or ():
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def fail(message: str) -> None:
    click.echo(f"autodetach: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _progress(enabled: bool):
    if not enabled:
        return None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    console=Console(stderr=True), transient=True)


class _Signals:
    """While --verify runs: the first SIGTERM or SIGINT stops the runs (their
    process groups are killed) and the report is still written, the rewrites
    not verified marked `interrupted`; `got` holds the signal for the exit
    status (128 + it). A second one ends at once."""

    def __init__(self) -> None:
        self.got: list = []
        self.old: dict = {}

    def _on(self, signum, frame) -> None:
        if self.got:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            raise KeyboardInterrupt
        self.got.append(signum)
        click.echo(f"autodetach: interrupted ({signal.Signals(signum).name}): stopping the runs; the report "
                   "marks the rewrites not verified `interrupted` (again to quit at once)", err=True)
        from .verify.integrate import interrupt

        interrupt()

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.old[sig] = signal.signal(sig, self._on)
        return self

    def __exit__(self, *exc):
        for sig, old in self.old.items():
            signal.signal(sig, old)
        return False


class _VerifyProgress:
    """--verify's progress on stderr, run by run: a bar on a terminal, and
    with --progress elsewhere one line per run (a log shows it advancing)."""

    def __init__(self, enabled: Optional[bool]) -> None:
        tty = sys.stderr.isatty()
        self.on = tty if enabled is None else enabled
        self.bar = self.task = None
        self.total = self.count = 0
        self.lock = threading.Lock()
        if self.on and tty:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("verifying: runs"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                TextColumn("{task.description}"), console=Console(stderr=True), transient=True)

    def __enter__(self):
        if self.bar is not None:
            self.bar.__enter__()
            self.task = self.bar.add_task("", total=0)
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False

    def planned(self, n: int) -> None:
        with self.lock:
            self.total += n
            if self.bar is not None:
                self.bar.update(self.task, total=self.total)

    def done(self, name: str, script: str, outcome) -> None:
        if not self.on:
            return
        with self.lock:
            self.count += 1
            what = "interrupted" if outcome.interrupted else ("timed out" if outcome.timed_out else
                                                             f"{outcome.wall:.1f} s")
            if self.bar is not None:
                self.bar.update(self.task, advance=1, description=f"{script} {name}: {what}")
            else:
                click.echo(f"autodetach: verify: run {self.count}/{self.total}: {script} {name}: {what}", err=True)


def _check_paths(paths) -> tuple:
    """(the paths that can be checked, one error line for each other one)."""
    good, bad = [], []
    for p in paths:
        if os.path.islink(p) and not os.path.exists(p):
            bad.append(f"{p}: broken symbolic link")
        elif not os.path.exists(p):
            bad.append(f"{p}: no such file or directory")
        elif not (os.path.isfile(p) or os.path.isdir(p)):
            bad.append(f"{p}: not a regular file or directory")
        else:
            good.append(p)
    return good, bad


def _selection(cfg, select, ignore, extend_select) -> list:
    """Rule selection as in ruff: a --select on the command line replaces the
    configured selection (and its ignores); --ignore and --extend-select add
    to whichever selection is in force."""
    where = f"{cfg.source}: " if cfg.source else ""
    try:
        cfg_select = validate(cfg.select, where) if cfg.select is not None else None
        cfg_ignore = validate(cfg.ignore, where)
        cfg_extend = validate(cfg.extend_select, where)
        for codes in cfg.per_file_ignores.values():
            validate(codes, f"{where}per-file-ignores: ")
        cli_select, cli_ignore, cli_extend = validate(select), validate(ignore), validate(extend_select)
    except SelectionError as exc:
        fail(str(exc))
    if cli_select:
        return select_rules(select=cli_select, ignore=cli_ignore, extend_select=cli_extend)
    return select_rules(select=cfg_select, ignore=cfg_ignore + cli_ignore, extend_select=cfg_extend + cli_extend)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=None,
              help="Also apply (or show, with --diff) unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff on stdout; write nothing.")
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable (e.g. AD2,AD201; ALL).")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable.")
@click.option("--extend-select", multiple=True, help="Codes or prefixes to enable on top of the selection.")
@click.option("--output-format", type=click.Choice(output.FORMATS), default="full", show_default=True)
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), help="Write the report here.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0,
              help="Worker processes (0: all cores); with --verify also the runs at once (at most the cores).")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="Where files are analysed: the local process pool, or a dask cluster "
                   "(the dask extra; docs/scale.md).")
@click.option("--scheduler", metavar="ADDRESS",
              help="With --executor dask: the scheduler (tcp://host:8786); without it, a local cluster of -j workers.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--statistics", is_flag=True, help="Count findings per rule instead of listing them.")
@click.option("--explain", metavar="CODE", help="Print a rule's documentation.")
@click.option("--list-rules", is_flag=True, help="List the rules.")
@click.option("--config", "config_path", type=click.Path(), help="A pyproject.toml or autodetach.toml.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
@click.option("--progress/--no-progress", default=None, help="Progress bar on stderr (default: on a terminal).")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only, no summary.")
@click.option("--verify", is_flag=True, help="Run the code before and after each fix and give a verdict.")
@click.option("--verified-only", is_flag=True,
              help="With --fix: apply only fixes verified fixed, equivalent or repaired.")
@click.option("--run", "run_cmd", metavar="CMD", help="With --verify: the command that exercises the code.")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True)
@click.option("--steps", type=click.IntRange(min=3), default=5, show_default=True,
              help="With --verify: step budget; each training loop ends after this many optimizer steps "
                   "and the rest of the program runs.")
@click.option("--timeout", type=click.IntRange(min=1), default=120, show_default=True,
              help="With --verify: seconds per run.")
@click.option("--sandbox", type=click.Choice(["auto", "bwrap", "unshare", "none"]), default="auto", show_default=True,
              help="With --verify: isolation of the runs (docs/security.md).")
@click.version_option(__version__, "--version", prog_name="autodetach")
def check(**options):
    """Find and fix PyTorch code that misuses autograd."""
    args = Args(**options)
    if args.explain is not None:
        _explain(args.explain)
        return
    if args.list_rules:
        for r in all_rules():
            click.echo(f"{r.code}  {r.name:<38} {r.safety_label():<7} {r.summary}")
        return
    if args.diff and args.output_format in MACHINE_FORMATS and not args.output_file:
        fail(f"--diff prints a diff on stdout; use -o FILE for the {args.output_format} report")
    paths, bad_paths, cfg = paths_and_config(list(args.paths) or ["."], args.config_path)
    settings = _settings(args, cfg, paths)
    files = list(iter_files(paths, exclude=cfg.exclude, root=cfg.root))
    results = _analyse(files, settings, args)
    if not args.verify:
        _finish(results, files, settings, args, bad_paths)
    from .verify.integrate import verify_results

    with _Signals() as signals:
        with _VerifyProgress(args.progress) as progress:
            results = verify_results(results, files, settings, write=args.fix and not args.diff,
                                     verified_only=args.verified_only, run_cmd=args.run_cmd, device=args.device,
                                     steps=args.steps, timeout=args.timeout, sandbox=args.sandbox, progress=progress,
                                     jobs=min(args.jobs or os.cpu_count() or 1, os.cpu_count() or 1))
        _finish(results, files, settings, args, bad_paths, signals)


def _finish(results, files, settings: Settings, args: Args, bad_paths, signals=None) -> None:
    """Write the report and exit with the status it calls for."""
    findings = [f for r in results for f in r.findings if not f.fixed]
    errors = [e for r in results for e in r.errors]
    fixed = sum(r.fixed for r in results if not r.write_failed) if settings.fix else 0
    emit(results, Totals(findings, errors, fixed, len(files)), args, settings.unsafe)
    if signals is not None and signals.got:
        sys.exit(128 + signals.got[0])
    if bad_paths or errors or any(r.crashed for r in results):
        sys.exit(EXIT_ERROR)
    if args.exit_zero:
        sys.exit(EXIT_CLEAN)
    if args.diff:
        sys.exit(EXIT_FINDINGS if any(r.diff for r in results) else EXIT_CLEAN)
    sys.exit(EXIT_FINDINGS if findings else EXIT_CLEAN)


@dataclass(frozen=True)
class Args:
    """The main command's options, as click parsed them (names as in `--help`)."""
    paths: tuple
    fix: bool
    unsafe_fixes: Optional[bool]  # None: the configuration decides
    diff: bool
    select: tuple
    ignore: tuple
    extend_select: tuple
    output_format: str
    output_file: Optional[str]
    jobs: int
    executor: str
    scheduler: Optional[str]
    exit_zero: bool
    statistics: bool
    explain: Optional[str]
    list_rules: bool
    config_path: Optional[str]
    no_cache: bool
    progress: Optional[bool]
    quiet: bool
    verify: bool
    verified_only: bool  # implies verify
    run_cmd: Optional[str]
    device: str
    steps: int
    timeout: int
    sandbox: str

    def __post_init__(self):
        if self.verified_only:
            object.__setattr__(self, "verify", True)


@dataclass
class Totals:
    findings: list  # not fixed
    errors: list
    fixed: int
    n_files: int


def _explain(explain: str) -> None:
    code = explain.strip().upper()
    if code == "AD000":
        click.echo(AD000_PAGE, nl=False)
        return
    rule = by_code().get(code)
    if rule is None:
        fail(f"unknown rule code '{explain}' (see --list-rules)")
    from .docs import rule_page

    click.echo(rule_page(rule), nl=False)


def _settings(args: Args, cfg, paths) -> Settings:
    """The configuration and the options resolved once, for every file."""
    rules = _selection(cfg, _split(args.select), _split(args.ignore), _split(args.extend_select))
    return Settings(
        codes=tuple(r.code for r in rules), fix=args.fix or args.diff or args.verify,
        write=args.fix and not args.diff and not args.verify,
        unsafe=cfg.unsafe_fixes if args.unsafe_fixes is None else args.unsafe_fixes, diff=args.diff,
        per_file_ignores=cfg.per_file_ignores, root=cfg.root,
        cache_dir=None if args.no_cache else cache_dir_for(cfg), keep_sources=args.verify,
        roots=tuple(os.path.realpath(p) for p in paths),
    )


def _analyse(files, settings: Settings, args: Args) -> list:
    jobs = args.jobs or os.cpu_count() or 1
    show_progress = args.progress if args.progress is not None else (sys.stderr.isatty() and len(files) > 20)
    bar = _progress(bool(show_progress))

    from .executors import ExecutorError, make

    try:
        engine = make(args.executor, jobs, args.scheduler)
    except ExecutorError as exc:
        fail(str(exc))
    results = []
    try:
        stream = run(files, settings, jobs=jobs, executor=engine)
        if bar is not None:
            with bar:
                task = bar.add_task("check", total=len(files))
                for res in stream:
                    results.append(res)
                    bar.advance(task)
        else:
            results = list(stream)
    finally:
        if engine is not None:
            engine.close()
    return results


def _write_stdout(text: str) -> None:
    """Write to stdout keeping bytes that are not UTF-8 (a latin-1 file's diff)."""
    sys.stdout.flush()
    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:  # a text-only stdout: bytes that are not UTF-8 become U+FFFD
        sys.stdout.write(text.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
        sys.stdout.flush()
        return
    stream.write(text.encode("utf-8", "surrogateescape"))
    stream.flush()


def emit(results, totals: Totals, args: Args, unsafe: bool) -> None:
    fmt, output_file, diff, verify = args.output_format, args.output_file, args.diff, args.verify
    errors, fixed = totals.errors, totals.fixed
    findings = sorted(totals.findings, key=lambda f: (f.path, f.line, f.column, f.code))
    for e in errors:
        click.echo(f"autodetach: {e['path']}: {e['message']}", err=True)
    if diff:
        patch = "".join(r.diff for r in results if r.diff)
        if patch:
            _write_stdout(patch)
    if fmt == "json":
        if verify:  # every rewrite carries its verdict: the fixed findings too
            findings = sorted((f for r in results for f in r.findings),
                              key=lambda f: (f.path, f.line, f.column, f.code))
        report = output.render_json(findings, totals.n_files, errors, fixed)
    elif fmt in output.CODE_HOST_FORMATS:
        report = output.render_for_host(fmt, findings, errors)
    else:
        chunks = []
        if args.statistics:
            if findings:
                chunks.append(output.statistics(findings))
        elif fmt == "concise":
            chunks.append("\n".join(output.concise_line(f) for f in findings))
        else:
            chunks.append(output.render_full(findings, output.source_lines(findings)))
        if verify:
            from .verify.report import render_table

            chunks.append(render_table(results))
        summary = "" if args.quiet else output.summary(
            findings, len({f.path for f in findings}), fixed, len(errors), fixing=args.fix and not diff,
            diff=diff, unsafe=unsafe)
        if diff and not output_file:
            # stdout carries the patch alone; the summary goes to stderr.
            if summary:
                click.echo(summary, err=True)
            summary = ""
            if not verify:
                chunks = []
        body = "\n\n".join(c.strip("\n") for c in chunks if c.strip())
        report = "\n\n".join(x for x in (body, summary) if x)
    if output_file:
        try:
            with open(output_file, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(report + ("\n" if report and not report.endswith("\n") else ""))
        except OSError as exc:
            fail(f"{output_file}: cannot write the report: {exc.strerror or exc}")
    elif report:
        click.echo(report)


def paths_and_config(paths, config_path):
    """(the paths that exist, the messages for those that do not, the
    configuration). Each missing path is one error line and the others are
    still processed; with none left, or a bad configuration, exit 2."""
    paths, bad = _check_paths(paths)
    for msg in bad:
        click.echo(f"autodetach: error: {msg}", err=True)
    if not paths:
        sys.exit(EXIT_ERROR)
    try:
        cfg = load(config_path, start=paths[0])
    except ConfigError as exc:
        fail(str(exc))
    return paths, bad, cfg


def main(argv: Optional[list] = None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv and argv[0] == "ci":
            from .ci.command import ci_command

            code = ci_command.main(args=argv[1:], prog_name="autodetach ci", standalone_mode=False)
        elif argv and argv[0] == "verify":
            try:
                from .verify.command import verify_command
            except ImportError:
                fail("verification is not available in this installation")
            code = verify_command.main(args=argv[1:], prog_name="autodetach verify", standalone_mode=False)
        elif argv and argv[0] == "migrate":
            from .migrate.cli import migrate_command

            code = migrate_command.main(args=argv[1:], prog_name="autodetach migrate", standalone_mode=False)
        else:
            code = check.main(args=argv, prog_name="autodetach", standalone_mode=False)
    except click.UsageError as exc:
        fail(f"{exc.format_message()} (see --help)")
    except click.ClickException as exc:
        click.echo(f"autodetach: error: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except (click.Abort, KeyboardInterrupt):
        click.echo("autodetach: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        # `autodetach ... | head`: the reader left; say nothing more.
        os._exit(EXIT_FINDINGS)
    sys.exit(code if isinstance(code, int) else EXIT_CLEAN)
