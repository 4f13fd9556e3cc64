"""Which repository a file belongs to: the innermost git root between the
file and the path given on the command line; else the top-level directory
under that path; else (a file directly under it, or a file given by name)
the git root above, or the file's own directory."""
from __future__ import annotations

import os


class Repos:
    def __init__(self, roots) -> None:
        self.roots = [os.path.abspath(r) for r in roots]
        self._git = {}  # directory -> is a git root

    def _is_git(self, d: str) -> bool:
        hit = self._git.get(d)
        if hit is None:
            hit = self._git[d] = os.path.exists(os.path.join(d, ".git"))
        return hit

    def _git_above(self, d: str):
        while True:
            if self._is_git(d):
                return d
            parent = os.path.dirname(d)
            if parent == d:
                return None
            d = parent

    def of(self, path: str) -> str:
        path = os.path.abspath(path)
        root = next((r for r in self.roots if path == r or path.startswith(r.rstrip(os.sep) + os.sep)), None)
        d = os.path.dirname(path)
        if root is not None and path != root:
            while d != root and d.startswith(root):
                if self._is_git(d):
                    return d
                d = os.path.dirname(d)
            if self._is_git(root):
                return root
            rel = os.path.relpath(path, root).split(os.sep)
            if len(rel) > 1:
                return os.path.join(root, rel[0])
            d = root
        return self._git_above(d) or d
