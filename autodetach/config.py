"""`[tool.autodetach]` in the nearest pyproject.toml, or an explicit --config."""
from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from typing import Optional

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore

KEYS = {"select", "ignore", "extend-select", "exclude", "extend-exclude", "per-file-ignores", "unsafe-fixes"}


class ConfigError(ValueError):
    pass


@dataclass
class Config:
    select: Optional[list] = None
    ignore: list = field(default_factory=list)
    extend_select: list = field(default_factory=list)
    exclude: list = field(default_factory=list)
    per_file_ignores: dict = field(default_factory=dict)
    unsafe_fixes: bool = False
    root: str = "."
    source: Optional[str] = None

    def ignored_for(self, path: str) -> frozenset:
        rel = os.path.relpath(os.path.abspath(path), self.root).replace(os.sep, "/")
        codes = set()
        for pattern, ignored in self.per_file_ignores.items():
            if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern):
                codes.update(ignored)
        return frozenset(codes)


def _list(value, key, where) -> list:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return value


def find_pyproject(start: str) -> Optional[str]:
    d = os.path.abspath(start)
    if os.path.isfile(d):
        d = os.path.dirname(d)
    while True:
        cand = os.path.join(d, "pyproject.toml")
        if os.path.isfile(cand):
            return cand
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def load(path: Optional[str] = None, start: str = ".") -> Config:
    explicit = path is not None
    if path is None:
        path = find_pyproject(start)
        if path is None:
            return Config(root=os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or "."))
    if not os.path.isfile(path):
        raise ConfigError(f"{path}: config file not found")
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    if os.path.basename(path) == "pyproject.toml" or "tool" in data:
        section = data.get("tool", {}).get("autodetach", {})
    else:
        section = data
    if explicit and os.path.basename(path) == "pyproject.toml" and not section:
        section = {}
    unknown = set(section) - KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown key `{sorted(unknown)[0]}` in [tool.autodetach]")
    cfg = Config(root=os.path.dirname(os.path.abspath(path)), source=path)
    if "select" in section:
        cfg.select = _list(section["select"], "select", path)
    cfg.ignore = _list(section.get("ignore", []), "ignore", path)
    cfg.extend_select = _list(section.get("extend-select", []), "extend-select", path)
    cfg.exclude = _list(section.get("exclude", []), "exclude", path) + _list(
        section.get("extend-exclude", []), "extend-exclude", path)
    pfi = section.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{path}: `per-file-ignores` must be a table of glob = [codes]")
    cfg.per_file_ignores = {k: [c.upper() for c in _list(v, k, path)] for k, v in pfi.items()}
    u = section.get("unsafe-fixes", False)
    if not isinstance(u, bool):
        raise ConfigError(f"{path}: `unsafe-fixes` must be true or false")
    cfg.unsafe_fixes = u
    return cfg
