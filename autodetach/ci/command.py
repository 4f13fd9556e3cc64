"""The `autodetach ci` command line. Exit codes as for `autodetach`: 0
nothing left to report, 1 findings remain on the changed lines (with
--commit: findings the commit did not fix), 2 an error."""
from __future__ import annotations

import os
import sys

import click

from .. import output
from ..cache import dir_for as cache_dir_for
from ..cli import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, _check_paths, _selection, _split, _write_stdout, fail
from ..config import ConfigError, load
from ..discovery import iter_files
from ..pathmatch import Globs
from ..runner import Settings
from . import fixes as fx
from .git import GitError, changed_lines, merge_base, toplevel

FORMATS = ("full", "concise", "json", "sarif", "github", "gitlab", "rdjson")
# How the text summary says to apply the offered fixes.
CI_FIX = "`autodetach ci --commit` (or `--patch FILE`)"
SUFFIXES = (".py", ".ipynb")  # the changed files that are checked


def _changed_files(top: str, base: str, paths: list, cfg) -> dict:
    """{absolute path: changed lines} for the changed .py files and
    notebooks under `paths` that the configuration does not exclude. A
    notebook's are lines of its virtual program (ci/nblines)."""
    wanted = [os.path.realpath(p) for p in paths]
    excluded = Globs(cfg.exclude)
    renamed: dict = {}
    out = {}
    for rel, lines in sorted(changed_lines(base, top, renamed).items()):
        full = os.path.join(top, rel)
        if not rel.endswith(SUFFIXES) or os.path.islink(full):  # git diffs a link's target path, not code
            continue
        real = os.path.realpath(full)
        if not any(real == w or real.startswith(w.rstrip(os.sep) + os.sep) for w in wanted):
            continue
        if excluded.match(os.path.relpath(full, cfg.root)):
            continue
        if rel.endswith(".ipynb") and lines:  # (renamed as it was: no line changed)
            lines = _notebook_lines(top, base, renamed.get(rel, rel), full)
        out[full] = lines
    return out


def _notebook_lines(top: str, base: str, rel: str, full: str):
    """The changed virtual lines of a notebook (None: check it whole)."""
    from .git import show
    from .nblines import changed

    try:
        with open(full, "rb") as fh:
            new = fh.read()
    except OSError:
        return None  # the check reports why it cannot be read
    return changed(show(base, rel, top), new)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--changed-since", "base", metavar="REF",
              help="Check only the files changed since the merge base of REF and HEAD, and report "
                   "findings on the changed lines only.")
@click.option("--whole-files", is_flag=True, help="With --changed-since: report the changed files' every finding.")
@click.option("--output-format", type=click.Choice(FORMATS), default="full", show_default=True)
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), help="Write the report here.")
@click.option("--patch", "patch_file", type=click.Path(dir_okay=False),
              help="Write the offered fixes as a patch (`git apply` accepts it).")
@click.option("--commit", "do_commit", is_flag=True, help="Commit the fixes to the current branch.")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Also offer unsafe fixes.")
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable.")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable.")
@click.option("--extend-select", multiple=True, help="Codes or prefixes to enable on top of the selection.")
@click.option("--config", "config_path", type=click.Path(), help="A pyproject.toml or autodetach.toml.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes (0: all cores).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("-q", "--quiet", is_flag=True, help="No summary line.")
@click.option("--verify", is_flag=True, help="Run each fixed file before and after; keep only fixes verified "
                                             "fixed, equivalent or repaired.")
@click.option("--run", "run_cmd", metavar="CMD", help="With --verify: the command that exercises the code.")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True)
@click.option("--steps", type=click.IntRange(min=3), default=5, show_default=True,
              help="With --verify: optimizer steps per training loop.")
@click.option("--timeout", type=click.IntRange(min=1), default=120, show_default=True,
              help="With --verify: seconds per run.")
@click.option("--sandbox", type=click.Choice(["auto", "bwrap", "unshare", "none"]), default="auto",
              show_default=True, help="With --verify: isolation of the runs (docs/security.md).")
def ci_command(paths, base, whole_files, output_format, output_file, patch_file, do_commit, unsafe_fixes,
               select, ignore, extend_select, config_path, no_cache, jobs, exit_zero, quiet, verify, run_cmd,
               device, steps, timeout, sandbox):
    """Check a pull request: findings on its changed lines, with fixes as
    suggestions, a patch or a commit."""
    paths, bad_paths = _check_paths(list(paths) or ["."])
    for msg in bad_paths:
        click.echo(f"autodetach: error: {msg}", err=True)
    if not paths:
        sys.exit(EXIT_ERROR)
    paths = [os.path.abspath(p) for p in paths]
    # Outputs are written where the user asked, relative to where they asked.
    output_file = os.path.abspath(output_file) if output_file else None
    patch_file = os.path.abspath(patch_file) if patch_file else None
    config_path = os.path.abspath(config_path) if config_path else None
    top = toplevel(paths[0] if os.path.isdir(paths[0]) else os.path.dirname(paths[0]))
    if top is None and (base or do_commit):
        fail(f"{'--changed-since' if base else '--commit'} needs a git repository")
    try:
        cfg = load(config_path, start=paths[0])
    except ConfigError as exc:
        fail(str(exc))
    rules = _selection(cfg, _split(select), _split(ignore), _split(extend_select))
    codes = tuple(r.code for r in rules)
    unsafe = cfg.unsafe_fixes if unsafe_fixes is None else unsafe_fixes
    if top is not None:
        os.chdir(top)  # paths in every report are relative to the repository root
    try:
        if base:
            lines_of = _changed_files(top, merge_base(base, top), paths, cfg)
        else:
            lines_of = {os.path.abspath(p): None for p in iter_files(paths, exclude=cfg.exclude, root=cfg.root)}
    except GitError as exc:
        fail(str(exc))
    if whole_files:
        lines_of = dict.fromkeys(lines_of)
    else:  # a file renamed as it was has no changed line to report on
        lines_of = {p: lines for p, lines in lines_of.items() if lines is None or lines}
    files = list(lines_of)
    settings = Settings(codes=codes, unsafe=unsafe, per_file_ignores=cfg.per_file_ignores, root=cfg.root,
                        cache_dir=None if no_cache else cache_dir_for(cfg),
                        roots=tuple(os.path.realpath(p) for p in paths))
    from ..executors import WorkerDied
    from ..runner import display_path
    from .batch import check_all

    items = [(display_path(p), p, lines_of[p], tuple(c for c in codes if c not in settings.ignored_for(p)))
             for p in files]
    try:
        plans, errors = check_all(items, unsafe, settings.cache_dir, jobs or os.cpu_count() or 1)
    except WorkerDied as exc:
        fail(str(exc))

    if verify:
        _verify(plans, settings, lines_of, unsafe, run_cmd, device, steps, timeout, sandbox)

    if patch_file:
        from ..runner import unified_diff

        patch = "".join(unified_diff(ff.real, ff.old, ff.new) for ff in plans if ff.new is not None)
        _write(patch_file, patch, "patch")

    committed = None
    if do_commit:
        from .commit import commit

        committed, errs = commit(top, plans)
        errors += errs

    _report(plans, errors, output_format, output_file, quiet, committed, do_commit, verify, len(files), unsafe)
    summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_path:
        from .formats import render_summary

        _write(summary_path, render_summary(plans, output_format, base, bool(committed), errors), "summary",
               append=True)

    remaining = [f for ff in plans for f in ff.findings if not (do_commit and f.fixed)]
    if bad_paths or errors:
        sys.exit(EXIT_ERROR)
    if exit_zero:
        sys.exit(EXIT_CLEAN)
    sys.exit(EXIT_FINDINGS if remaining else EXIT_CLEAN)


def _verify(plans, settings, lines_of, unsafe, run_cmd, device, steps, timeout, sandbox) -> None:
    """Verdicts for the offered fixes (through `autodetach --verify`'s
    integration), then keep only the rewrites verified fixed, equivalent or repaired."""
    from dataclasses import replace

    from ..findings import FileResult
    from ..verify.compare import GOOD
    from ..verify.integrate import verify_results

    todo = [ff for ff in plans if ff.new is not None]
    if not todo:
        return
    results = [FileResult(path=ff.path, old_source=ff.old, new_source=ff.new,
                          fixed=sum(f.fixed for f in ff.findings)) for ff in todo]
    results = verify_results(results, [ff.real for ff in todo], replace(settings, diff=True), run_cmd=run_cmd,
                             device=device, steps=steps, timeout=timeout, sandbox=sandbox)
    for ff, r in zip(todo, results):
        verdicts = {fx.key(f): f.verification for f in r.findings if f.verification}
        for f in ff.findings:
            if f.fixed:
                f.verification = verdicts.get(fx.key(f)) or {
                    "verdict": "unverifiable", "details": "the verifier did not reach this rewrite"}
        fx.keep_verified(ff, ff.codes, lines_of[ff.real], unsafe, GOOD)


def _write(path: str, text: str, what: str, append: bool = False) -> None:
    try:
        with open(path, "a" if append else "w", encoding="utf-8", errors="surrogateescape", newline="\n") as fh:
            fh.write(text)
    except OSError as exc:
        fail(f"{path}: cannot write the {what}: {exc.strerror or exc}")


def _report(plans, errors, fmt, output_file, quiet, committed, do_commit, verify, n_files, unsafe) -> None:
    for e in errors:
        click.echo(f"autodetach: {e['path']}: {e['message']}", err=True)
    from dataclasses import replace

    # Without --commit nothing was fixed on disk: every finding is shown as open.
    shown = sorted((f if do_commit else replace(f, fixed=False)
                    for ff in plans for f in ff.findings if not (do_commit and f.fixed)),
                   key=lambda f: (f.path, f.line, f.column, f.code))
    if fmt == "rdjson":
        from .formats import render_rdjson

        report = render_rdjson(plans, only_remaining=do_commit)
    elif fmt == "json":
        every = sorted((f for ff in plans for f in ff.findings), key=lambda f: (f.path, f.line, f.column, f.code))
        report = output.render_json(every if do_commit else shown, n_files, errors,
                             sum(f.fixed for f in every) if do_commit else 0)
    elif fmt in output.CODE_HOST_FORMATS:
        report = output.render_for_host(fmt, shown, errors)
    else:
        if fmt == "concise":
            body = "\n".join(output.concise_line(f) for f in shown)
        else:
            body = output.render_full(shown, output.source_lines(shown))
        if verify:
            from ..verify.report import render_table

            body = "\n\n".join(x for x in (body, render_table(plans)) if x)
        fixed = sum(f.fixed for ff in plans for f in ff.findings)
        tail = "" if quiet else output.summary(shown, len({f.path for f in shown}), fixed if do_commit else 0,
                                               len(errors), fixing=do_commit, unsafe=unsafe, fix_with=CI_FIX)
        if committed and not quiet:
            tail += f"\nCommitted the fixes as {committed[:12]}."
        report = "\n\n".join(x for x in (body.strip("\n"), tail.strip("\n")) if x)
    if output_file:
        _write(output_file, report + ("\n" if report and not report.endswith("\n") else ""), "report")
    elif report:
        _write_stdout(report + "\n")
