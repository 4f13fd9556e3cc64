"""`[tool.autodetach]` in the nearest pyproject.toml, or an explicit --config."""
from __future__ import annotations

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


def _list(value, key, where) -> list:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return value


CONFIG_NAMES = ("autodetach.toml", ".autodetach.toml", "pyproject.toml")


def _read_toml(path: str) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {str(exc).splitlines()[0]}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _has_section(path: str) -> bool:
    if os.path.basename(path) != "pyproject.toml":
        return True
    tool = _read_toml(path).get("tool")
    return isinstance(tool, dict) and "autodetach" in tool


def find_config(start: str) -> Optional[str]:
    """The nearest autodetach.toml, .autodetach.toml, or pyproject.toml with
    a [tool.autodetach] table, from `start` upwards (ruff's rule: a
    pyproject.toml without our table does not stop the search)."""
    d = os.path.abspath(start)
    if not os.path.isdir(d):
        d = os.path.dirname(d)
    while True:
        for name in CONFIG_NAMES:
            cand = os.path.join(d, name)
            if os.path.isfile(cand) and _has_section(cand):
                return cand
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def load(path: Optional[str] = None, start: str = ".") -> Config:
    if path is None:
        path = find_config(start)
        if path is None:
            base = os.path.abspath(start)
            return Config(root=base if os.path.isdir(base) else os.path.dirname(base))
    if not os.path.isfile(path):
        raise ConfigError(f"{path}: config file not found")
    data = _read_toml(path)
    if os.path.basename(path) == "pyproject.toml" or "tool" in data:
        tool = data.get("tool", {})
        section = tool.get("autodetach", {}) if isinstance(tool, dict) else {}
        table = "[tool.autodetach]"
    else:
        section = data
        table = "the config"
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: {table} must be a table")
    unknown = sorted(set(section) - KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown key `{unknown[0]}` in {table} (known: {', '.join(sorted(KEYS))})")
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
    cfg.per_file_ignores = {k: [c.strip().upper() for c in _list(v, f"per-file-ignores.{k}", path)]
                            for k, v in pfi.items()}
    u = section.get("unsafe-fixes", False)
    if not isinstance(u, bool):
        raise ConfigError(f"{path}: `unsafe-fixes` must be true or false")
    cfg.unsafe_fixes = u
    return cfg
