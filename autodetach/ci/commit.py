"""`autodetach ci --commit`: write the offered fixes and commit them to the
current branch, one commit listing each fix and its verdict. A fixed file
that does not parse is never written or committed."""
from __future__ import annotations

import os

import libcst as cst

from ..textio import decode, link_out, write_fixed
from .fixes import key
from .formats import verdict_of, where
from .git import GitError, git

NOT_PARSED = "not committed: the fixed file does not parse (an autodetach bug; please report it)"


def _parses(data: bytes, path: str = "") -> bool:
    from ..notebook import is_notebook

    if is_notebook(path):
        from .notebooks import parses

        return parses(data)
    try:
        cst.parse_module(decode(data).text)
    except Exception:
        return False
    return True


def message(fixes) -> str:
    done = [(ff, f) for ff in fixes for f in ff.findings if f.fixed]
    n = len(done)
    lines = [f"autodetach: fix {n} finding{'s' * (n != 1)} in {len({ff.path for ff, _ in done})} file(s)", ""]
    for ff, f in done:
        lines.append(f"- {where(ff, f)} {f.code} {f.name}: {f.fix_title or 'fixed'} ({verdict_of(f)})")
    return "\n".join(lines) + "\n"


def _identity(top: str) -> list:
    """Committer options for a runner with no git identity configured."""
    if os.environ.get("GIT_COMMITTER_EMAIL") and os.environ.get("GIT_AUTHOR_EMAIL"):
        return []
    try:
        if git(["config", "user.email"], cwd=top).strip():
            return []
    except GitError:
        pass
    return ["-c", "user.name=autodetach", "-c", "user.email=autodetach@users.noreply.github.com"]


def _dirty(top: str, paths: list) -> set:
    """The paths that differ from HEAD (staged, unstaged or untracked)."""
    if not paths:
        return set()
    out = git(["status", "--porcelain", "-z", "--untracked-files=all", "--", *paths], cwd=top)
    entries = out.split("\0")
    dirty, i = set(), 0
    while i < len(entries) and entries[i]:
        status, name = entries[i][:2], entries[i][3:]
        dirty.add(name)
        i += 2 if status[0] in "RC" else 1  # a rename is followed by its old path
    return dirty


def _write(top: str, ff, dirty: set) -> "str | None":
    """Write one fixed file; returns why it was not written, or None."""
    # The link first: a staged link out of the repository is "uncommitted" too.
    problem = link_out(ff.real, (os.path.realpath(top),), "the repository")
    if problem is not None:
        return problem
    if os.path.relpath(ff.real, top) in dirty:
        # The commit would take the user's uncommitted edits along.
        return "not committed: the file has uncommitted changes (commit or stash them first)"
    if not _parses(ff.new, ff.path):
        return NOT_PARSED
    return write_fixed(ff.real, ff.new)  # the read-only check, the write and their messages


def commit(top: str, fixes) -> tuple:
    """Write and commit. Returns (commit id or None, error dicts)."""
    errors, paths = [], []
    todo = [ff for ff in fixes if ff.new is not None]
    dirty = _dirty(top, [os.path.relpath(ff.real, top) for ff in todo])
    for ff in todo:
        problem = _write(top, ff, dirty)
        if problem:
            errors.append({"path": ff.path, "message": problem})
            for f in ff.findings:
                if f.fixed:
                    f.fixed = False
                    ff.left[key(f)] = problem
            ff.new = None
            continue
        paths.append(os.path.relpath(ff.real, top))
    if not paths:
        return None, errors
    try:
        git(["add", "--", *paths], cwd=top)
        git([*_identity(top), "commit", "-q", "--no-verify", "-m", message(fixes), "--", *paths], cwd=top)
        sha = git(["rev-parse", "HEAD"], cwd=top).strip()
    except GitError as exc:
        errors.append({"path": top, "message": f"not committed: {exc}"})
        return None, errors
    return sha, errors
