"""`autodetach migrate PATH... --report DIR`."""
from __future__ import annotations

import os
import sys

import click

from ..cli import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, _selection, fail, paths_and_config
from ..discovery import iter_files
from ..runner import Settings


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path(), required=True)
@click.option("--report", "report_dir", required=True, type=click.Path(file_okay=False),
              help="Folder for report.md, report.json, report.html and the resume state.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply unsafe fixes (each is listed for review).")
@click.option("--verify", is_flag=True, help="Run each fixed file before and after; verdicts go in the report.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes (0: all cores).")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="Where files are migrated: the local process pool, or a dask cluster (docs/scale.md).")
@click.option("--scheduler", metavar="ADDRESS",
              help="With --executor dask: the scheduler (tcp://host:8786); without it, a local cluster of -j workers.")
@click.option("--config", "config_path", type=click.Path(), help="A pyproject.toml or autodetach.toml.")
@click.option("--progress/--no-progress", default=None, help="Progress bar on stderr (default: on a terminal).")
@click.option("--steps", type=click.IntRange(min=3), default=5, show_default=True, help="With --verify: step budget.")
@click.option("--timeout", type=click.IntRange(min=1), default=120, show_default=True,
              help="With --verify: seconds per run.")
@click.option("-q", "--quiet", is_flag=True, help="No summary on stdout.")
def migrate_command(paths, report_dir, unsafe_fixes, verify, jobs, executor, scheduler, config_path, progress, steps,
                    timeout, quiet):
    """Migrate legacy PyTorch code in place (AD2 fixes and the safe AD1
    fixes), resumably, and write a report to DIR."""
    from .core import Run
    from .report import headline, write_all

    paths, bad, cfg = paths_and_config(paths, config_path)
    rules = _selection(cfg, [], [], [])
    unsafe = unsafe_fixes or cfg.unsafe_fixes
    files = list(iter_files(paths, exclude=cfg.exclude, root=cfg.root))
    settings = Settings(codes=tuple(r.code for r in rules), fix=True, unsafe=unsafe,
                        per_file_ignores=cfg.per_file_ignores, root=cfg.root,
                        roots=tuple(os.path.realpath(p) for p in paths))
    try:
        os.makedirs(report_dir, exist_ok=True)
    except OSError as exc:
        fail(f"{report_dir}: cannot create the report folder: {exc.strerror or exc}")
    from ..executors import ExecutorError, make

    jobs = jobs or os.cpu_count() or 1
    try:
        engine = make(executor, jobs, scheduler)
    except ExecutorError as exc:
        fail(str(exc))
    show = progress if progress is not None else (sys.stderr.isatty() and len(files) > 20)
    run = Run(files=files, settings=settings, report_dir=report_dir, roots=list(paths),
              jobs=jobs, executor=engine,
              verify={"steps": steps, "timeout": timeout} if verify else None)
    try:
        state = _migrate_showing(run, show, len(files))
    finally:
        if engine is not None:
            engine.close()
    for w in run.warnings:
        click.echo(f"autodetach: warning: {w}", err=True)
    options = {"paths": list(paths), "unsafe_fixes": unsafe, "verify": verify, "resumed_files": run.resumed}
    summary = write_all(report_dir, state, [os.path.abspath(f) for f in files], options)
    if not quiet:
        for line in headline(summary):
            click.echo(line)
        if run.resumed:
            click.echo(f"Resumed: {run.resumed} files were done by an earlier run and left as they are.")
        click.echo(f"Report: {os.path.join(report_dir, 'report.html')} (also report.md, report.json).")
    c = summary.total.counts
    if bad or c["failed"] > c["unparseable"]:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if c["left"] or c["unparseable"] else EXIT_CLEAN)


def _migrate_showing(run, show: bool, total: int):
    if not show:
        return _migrate(run)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("migrating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("migrate", total=total)
        run.on_progress = lambda n: bar.advance(task, n)
        return _migrate(run)


def _migrate(run):
    from ..executors import WorkerDied
    from .core import migrate

    try:
        return migrate(run)
    except WorkerDied as exc:  # the state holds every file done: a re-run resumes
        fail(str(exc))
