"""The command line. Conventions follow ruff, which users already know.

Exit codes: 0 nothing left to report; 1 findings remain (or --diff has a
diff); 2 usage or configuration error, or an internal error on some file."""
from __future__ import annotations

import os
import sys
from typing import Optional

import click

from . import __version__, output
from .config import ConfigError, load
from .discovery import iter_files
from .registry import SelectionError, all_rules, by_code, select_rules
from .runner import Settings, run

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _split(values) -> list:
    out = []
    for v in values or ():
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def fail(message: str) -> None:
    click.echo(f"autodetach: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    console=Console(stderr=True), transient=True)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, default=None, help="Also apply (or show) unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable (e.g. AD1,AD201; ALL).")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable.")
@click.option("--extend-select", multiple=True, help="Codes to enable on top of the selection.")
@click.option("--output-format", type=click.Choice(output.FORMATS), default="full", show_default=True)
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), help="Write the report here.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes (0: all cores).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--statistics", is_flag=True, help="Count findings per rule.")
@click.option("--explain", metavar="CODE", help="Print a rule's documentation.")
@click.option("--list-rules", is_flag=True, help="List the rules.")
@click.option("--config", "config_path", type=click.Path(), help="A pyproject.toml or autodetach.toml.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a terminal).")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only, no summary.")
@click.option("--verify", is_flag=True, help="Run the code before and after each fix and give a verdict.")
@click.option("--verified-only", is_flag=True, help="With --fix: apply only fixes verified fixed or equivalent.")
@click.option("--run", "run_cmd", metavar="CMD", help="With --verify: the command that exercises the code.")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True)
@click.option("--steps", type=click.IntRange(min=3), default=5, show_default=True,
              help="With --verify: optimizer steps or backward calls per run.")
@click.option("--timeout", type=click.IntRange(min=1), default=120, show_default=True,
              help="With --verify: seconds per run.")
@click.version_option(__version__, "--version", prog_name="autodetach")
def check(paths, fix, unsafe_fixes, diff, select, ignore, extend_select, output_format, output_file,
          jobs, exit_zero, statistics, explain, list_rules, config_path, no_cache, progress, quiet,
          verify, verified_only, run_cmd, device, steps, timeout):
    """Find and fix PyTorch code that misuses autograd."""
    if explain:
        rule = by_code().get(explain.strip().upper())
        if rule is None:
            fail(f"unknown rule code '{explain}' (see --list-rules)")
        from .docs import rule_page

        click.echo(rule_page(rule))
        return
    if list_rules:
        for r in all_rules():
            click.echo(f"{r.code}  {r.name:<38} {r.safety_label():<7} {r.summary}")
        return
    if verified_only and not verify:
        verify = True
    paths = list(paths) or ["."]
    for p in paths:
        if not os.path.exists(p):
            fail(f"{p}: no such file or directory")
    try:
        cfg = load(config_path, start=paths[0])
    except ConfigError as exc:
        fail(str(exc))
    try:
        rules = select_rules(
            select=_split(select) or cfg.select,
            ignore=_split(ignore) + cfg.ignore,
            extend_select=_split(extend_select) + cfg.extend_select,
        )
    except SelectionError as exc:
        fail(str(exc))
    unsafe = cfg.unsafe_fixes if unsafe_fixes is None else unsafe_fixes
    files = list(iter_files(paths, exclude=cfg.exclude, root=cfg.root))
    settings = Settings(
        codes=tuple(r.code for r in rules), fix=fix or diff or verify, write=fix and not verify,
        unsafe=unsafe, diff=diff, per_file_ignores=cfg.per_file_ignores, root=cfg.root,
    )
    jobs = jobs or os.cpu_count() or 1
    show_progress = progress if progress is not None else (sys.stderr.isatty() and len(files) > 20)
    bar = _progress(len(files), bool(show_progress))

    results = []
    stream = run(files, settings, jobs=jobs)
    if bar is not None:
        with bar:
            task = bar.add_task("check", total=len(files))
            for res in stream:
                results.append(res)
                bar.advance(task)
    else:
        results = list(stream)

    if verify:
        from .verify.integrate import verify_results

        results = verify_results(results, files, settings, write=fix, verified_only=verified_only,
                                 run_cmd=run_cmd, device=device, steps=steps, timeout=timeout)

    findings = [f for r in results for f in r.findings if not f.fixed]
    errors = [e for r in results for e in r.errors]
    fixed = sum(r.fixed for r in results if not r.write_failed) if (fix or diff) else 0
    crashed = any(r.crashed for r in results)
    emit(results, findings, errors, fixed, len(files), output_format, output_file, diff, statistics,
         quiet, fix, unsafe, verify)

    if crashed:
        sys.exit(EXIT_ERROR)
    if exit_zero:
        sys.exit(EXIT_CLEAN)
    if diff:
        sys.exit(EXIT_FINDINGS if any(r.diff for r in results) else EXIT_CLEAN)
    sys.exit(EXIT_FINDINGS if findings else EXIT_CLEAN)


def emit(results, findings, errors, fixed, n_files, fmt, output_file, diff, stats, quiet, fixing,
         unsafe, verify) -> None:
    findings = sorted(findings, key=lambda f: (f.path, f.line, f.column, f.code))
    chunks = []
    if diff:
        chunks.append("".join(r.diff for r in results if r.diff))
    if fmt == "json":
        chunks.append(output.render_json(findings, n_files, errors, fixed))
    elif fmt == "sarif":
        chunks.append(output.render_sarif(findings, errors))
    elif fmt == "github":
        text = output.render_github(findings, errors)
        if text:
            chunks.append(text)
    else:
        if not diff:
            if fmt == "concise":
                body = "\n".join(output.concise_line(f) for f in findings)
            else:
                body = output.render_full(findings, _sources(findings))
            if body.strip():
                chunks.append(body.rstrip("\n"))
        if verify:
            from .verify.report import render_table

            chunks.append(render_table(results))
        for e in errors:
            click.echo(f"autodetach: {e['path']}: {e['message']}", err=True)
        if stats and findings:
            chunks.append(output.statistics(findings))
        if not quiet:
            text = output.summary(findings, len({f.path for f in findings}), fixed, len(errors), fixing, unsafe)
            if diff:
                click.echo(text, err=True)
            else:
                chunks.append(text)
    text = "\n".join(c.rstrip("\n") if not (diff and i == 0) else c for i, c in enumerate(chunks) if c)
    if output_file:
        with open(output_file, "w", encoding="utf-8") as fh:
            fh.write(text + ("\n" if text and not text.endswith("\n") else ""))
    elif text:
        click.echo(text, nl=not text.endswith("\n"))


def _sources(findings) -> dict:
    out = {}
    for path in {f.path for f in findings}:
        try:
            with open(path, "rb") as fh:
                from .textio import decode

                out[path] = decode(fh.read()).text.splitlines()
        except (OSError, UnicodeDecodeError, SyntaxError):
            pass
    return out


def main(argv: Optional[list] = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "verify":
        try:
            from .verify.cli import verify_command
        except ImportError:
            fail("verification is not available in this installation")
        verify_command.main(args=argv[1:], prog_name="autodetach verify")
        return
    check.main(args=argv, prog_name="autodetach")
