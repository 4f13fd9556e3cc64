"""What changed since a base ref, from git itself: the changed files (renames
followed, deletions ignored, untracked files left out) and, per file, the
lines that are new or modified in the working tree."""
from __future__ import annotations

import os
import re
import subprocess
from typing import Optional

HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", '"': '"', "\\": "\\"}


class GitError(Exception):
    pass


def git(args, cwd: str = ".", check: bool = True) -> str:
    try:
        proc = subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=cwd, capture_output=True)
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from exc
    if check and proc.returncode != 0:
        last = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {last[-1] if last else 'exit ' + str(proc.returncode)}")
    return proc.stdout.decode("utf-8", "surrogateescape")


def toplevel(cwd: str = ".") -> Optional[str]:
    """The repository's root folder, or None outside a repository."""
    try:
        out = git(["rev-parse", "--show-toplevel"], cwd=cwd).strip()
    except GitError:
        return None
    return out or None


def merge_base(ref: str, cwd: str) -> str:
    try:
        git(["rev-parse", "--verify", "--quiet", ref + "^{commit}"], cwd=cwd)
    except GitError:
        raise GitError(f"--changed-since: '{ref}' is not a commit in this repository "
                       "(fetch it first; in GitHub Actions use fetch-depth: 0)") from None
    try:
        return git(["merge-base", ref, "HEAD"], cwd=cwd).strip()
    except GitError:
        raise GitError(f"--changed-since: no common ancestor of '{ref}' and HEAD "
                       "(a shallow clone? fetch with fetch-depth: 0)") from None


def _unquote(name: str) -> str:
    """A path as git writes it in a patch header: C-quoted when it holds
    special characters (octal escapes are UTF-8 bytes)."""
    if not (name.startswith('"') and name.endswith('"')):
        return name
    out, raw, i, s = [], bytearray(), 0, name[1:-1]
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            nxt = s[i + 1]
            if nxt in "01234567":
                raw.append(int(s[i + 1:i + 4], 8))
                i += 4
                continue
            out.append(raw.decode("utf-8", "surrogateescape"))
            raw.clear()
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(raw.decode("utf-8", "surrogateescape"))
        raw.clear()
        out.append(c)
        i += 1
    out.append(raw.decode("utf-8", "surrogateescape"))
    return "".join(out)


def changed_lines(base: str, top: str, renamed: Optional[dict] = None) -> dict:
    """{path relative to the repository root: set of 1-based changed lines}
    for every file that exists in the working tree and differs from `base`
    (a pure rename maps to an empty set). `renamed`, when given, is filled
    with {new path: its path in `base`} for the renamed and copied files."""
    common = ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M", "--diff-filter=d"]
    names = git(common + ["--name-status", "-z", base], cwd=top).split("\0")
    files: dict = {}
    i = 0
    while i < len(names) and names[i]:
        status = names[i]
        if status[:1] in ("R", "C"):  # old path, new path
            files[names[i + 2]] = set()
            if renamed is not None:
                renamed[names[i + 2]] = names[i + 1]
            i += 3
        else:
            files[names[i + 1]] = set()
            i += 2
    current, left = None, 0  # left: lines of the current hunk still to read
    for line in git(common + ["-U0", "--src-prefix=a/", "--dst-prefix=b/", base], cwd=top).split("\n"):
        if left > 0:  # hunk body: "+++ x" here is an added line, not a header
            if line[:1] in "+- ":
                left -= 1
            continue
        if line.startswith("+++ "):
            name = _unquote(line[4:].rstrip("\t"))
            current = name[2:] if name.startswith("b/") else None
            if current is not None:
                files.setdefault(current, set())
            continue
        m = HUNK.match(line) if current is not None else None
        if m:
            start, count = int(m.group(2)), int(m.group(3) if m.group(3) is not None else 1)
            files[current].update(range(start, start + count))
            left = count + int(m.group(1) if m.group(1) is not None else 1)
    return {p: lines for p, lines in files.items() if os.path.isfile(os.path.join(top, p))}


def show(ref: str, path: str, top: str) -> Optional[bytes]:
    """The bytes of `path` (relative to the root) at `ref`; None when it is
    not there (a new file) or git cannot say."""
    try:
        proc = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=top, capture_output=True)
    except OSError:
        return None
    return proc.stdout if proc.returncode == 0 else None


def tracked(top: str, paths) -> set:
    """The given repository-relative paths git knows about."""
    if not paths:
        return set()
    out = git(["ls-files", "-z", "--", *paths], cwd=top)
    return {p for p in out.split("\0") if p}
