"""Tuning tables from ``pyproject.toml``, emitted into the generated module.

::

    [tool.rs2triton.tune.vector_add]          # a kernel fn's Rust name
    key = ["n_elements"]                      # re-tune when these arguments change
    configs = [{ BLOCK_SIZE = 256, num_warps = 4 }, { BLOCK_SIZE = 1024, num_warps = 8 }]
    # or: sweep = { BLOCK_SIZE = [256, 1024], num_warps = [4, 8] }   (every combination)

The table that applies to a ``.rs`` file is the one in the nearest
``pyproject.toml`` above it. It is checked against the kernel's signature with
the launcher's own rules (:mod:`rs2triton.runtime.launcher`); a mistake is a located
error (E0013) at transpile time.
"""

from __future__ import annotations

import math
import os
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rs2triton.diagnostics import Diagnostic, TranspileError

if TYPE_CHECKING:
    from rs2triton.transpiler.emit.launchers import Tuning
    from rs2triton.transpiler.frontend.items import Kernel

TABLE_KEYS = ("key", "configs", "sweep", "reset_to_zero", "restore_value")
MAX_CONFIGS = 4096  # configs a tuning table may have (each is compiled and timed for every new key)


def find_pyproject(source: Path) -> Path | None:
    """The nearest ``pyproject.toml`` in a folder above ``source`` (resolved: symbolic links followed)."""
    if os.path.islink(source):
        return _pyproject_above(source.resolve().parent)
    # (joined, not normalised: `link/../x.rs` is resolved through the link, as Path.resolve does)
    return _pyproject_in_or_above(os.path.dirname(os.path.join(os.getcwd(), os.fspath(source))))


@lru_cache(maxsize=256)
def _pyproject_in_or_above(folder: str) -> Path | None:
    # One resolve per folder, not per file: a run's files share their folders.
    return _pyproject_above(Path(folder).resolve())


def forget_pyprojects() -> None:
    """Look for pyproject.toml files afresh (the start of a run: one may have been made since)."""
    _pyproject_above.cache_clear()
    _pyproject_in_or_above.cache_clear()


@lru_cache(maxsize=256)
def _pyproject_above(folder: Path) -> Path | None:
    # Cached per folder within one run (see pipeline.plan, which clears it first): a run's
    # files share their folders, and each lookup is a stat per level.
    candidate = folder / "pyproject.toml"
    if candidate.is_file():
        return candidate
    return None if folder.parent == folder else _pyproject_above(folder.parent)


@lru_cache(maxsize=16)
def _read(path: Path, mtime: float) -> tuple[str, dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    if "rs2triton" not in text and "\\" not in text:
        # No `[tool.rs2triton]` table can be in it (not even with a key spelled in escapes):
        # skip parsing it, the one TOML parse in most runs.
        return text, {}
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TranspileError([Diagnostic("E0013", f"invalid pyproject.toml: {e}", _display(path), 1, 1)]) from e
    return text, data


def _display(path: Path) -> str:
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def tables(pyproject: Path | None) -> tuple[Path | None, str, dict[str, Any]]:
    """(path, text, {kernel name: raw table}) for ``[tool.rs2triton.tune]``; empty when absent."""
    if pyproject is None:
        return None, "", {}
    text, data = _read(pyproject, pyproject.stat().st_mtime)
    tune = data.get("tool", {}).get("rs2triton", {}).get("tune", {})
    if not isinstance(tune, dict):
        raise _error(pyproject, text, None, None, "`[tool.rs2triton] tune` must be a table of kernel names")
    return pyproject, text, tune


def tuning_for(kernel: Kernel, pyproject: Path, text: str, raw: object) -> Tuning:
    """The checked, normalised tuning literal for ``kernel`` (configs expanded from a sweep)."""
    from rs2triton.runtime.launcher import Launcher, sweep
    from rs2triton.transpiler.emit.launchers import signature_literal
    from rs2triton.transpiler.pyast import launcher_name

    def fail(message: str, key: str | None = None, hint: str | None = None) -> TranspileError:
        return _error(pyproject, text, kernel.name, key, message, hint)

    if not isinstance(raw, dict):
        raise fail(f"`tool.rs2triton.tune.{kernel.name}` must be a table")
    unknown = sorted(set(raw) - set(TABLE_KEYS))
    if unknown:
        raise fail(f"unknown key `{unknown[0]}` in the tuning table of `{kernel.name}`", unknown[0],
                   f"the keys are {', '.join(TABLE_KEYS)}")
    if ("configs" in raw) == ("sweep" in raw):
        raise fail(f"the tuning table of `{kernel.name}` needs exactly one of `configs` or `sweep`")
    if "configs" in raw:
        configs = raw["configs"]
        if not isinstance(configs, list) or not all(isinstance(c, dict) for c in configs):
            raise fail("`configs` must be a list of tables such as { BLOCK_SIZE = 256, num_warps = 4 }", "configs")
        where = "configs"
    else:
        values = raw["sweep"]
        if not isinstance(values, dict) or not all(isinstance(v, list) and v for v in values.values()):
            raise fail("`sweep` must map names to non-empty lists, e.g. { BLOCK_SIZE = [128, 256] }", "sweep")
        count = math.prod(len(v) for v in values.values())
        if count > MAX_CONFIGS:
            raise fail(f"`sweep` makes {count} configs; a tuning table may have at most {MAX_CONFIGS}", "sweep",
                       "sweep fewer values (each config is compiled and timed at the first launch of a new key)")
        configs = sweep(**values)
        where = "sweep"
    if len(configs) > MAX_CONFIGS:
        raise fail(f"`configs` lists {len(configs)} configs; a tuning table may have at most {MAX_CONFIGS}", where)
    seen: list[dict[str, Any]] = []
    for c in configs:
        if c in seen:
            raise fail(f"the config {c} is listed twice", where, "keep one: the autotuner would time it twice")
        seen.append(c)
    for name in ("key", "reset_to_zero", "restore_value"):
        names = raw.get(name, [])
        if not isinstance(names, list) or not all(isinstance(v, str) for v in names):
            raise fail(f"`{name}` must be a list of parameter names", name)
        twice = next((v for i, v in enumerate(names) if v in names[:i]), None)
        if twice is not None:
            raise fail(f"`{twice}` is listed twice in `{name}`", name, "keep one")
    tuning: Tuning = {"key": raw.get("key", []), "configs": configs}
    if "reset_to_zero" in raw:
        tuning["reset_to_zero"] = raw["reset_to_zero"]
    if "restore_value" in raw:
        tuning["restore_value"] = raw["restore_value"]
    try:
        # (a plain dict: the launcher takes `tuning` as one, and copies it)
        Launcher(None, launcher_name(kernel.name), **signature_literal(kernel), tuning=dict(tuning))
    except (TypeError, ValueError) as e:
        msg = str(e)
        key = next((k for k in ("key", "reset_to_zero", "restore_value") if f": {k} " in msg
                    or f"autotune: {k}" in msg), where)
        raise fail(msg.replace(".autotune:", " tuning:"), key) from None
    return tuning


def _error(pyproject: Path, text: str, kernel: str | None, key: str | None, message: str,
           hint: str | None = None) -> TranspileError:
    """A diagnostic at the table's header (or the key's line inside it)."""
    lines = text.replace("\r\n", "\n").split("\n")  # (only a line feed ends a TOML line: not U+2028)
    row, col, length = 0, 1, 1
    if kernel is not None:
        header = re.compile(rf"^\s*\[\s*tool\.rs2triton\.tune\.\"?{re.escape(kernel)}\"?\s*\]")
        inline = re.compile(rf"^\s*\"?{re.escape(kernel)}\"?\s*=")
        start = next((i for i, line in enumerate(lines) if header.match(line)), None)
        if start is None:
            start = next((i for i, line in enumerate(lines) if inline.match(line)), 0)
        row = start
        if key is not None:
            key_re = re.compile(rf"^\s*{re.escape(key)}\s*=")
            for i in range(start + 1, len(lines)):
                if lines[i].lstrip().startswith("["):
                    break
                if key_re.match(lines[i]):
                    row = i
                    break
        line = lines[row] if row < len(lines) else ""
        col = len(line) - len(line.lstrip()) + 1
        length = max(1, len(line.strip()))
    source_line = lines[row] if row < len(lines) else None
    return TranspileError([Diagnostic("E0013", message, _display(pyproject), row + 1, col, length,
                                      hint or "see docs/python-api.md#tuning-in-pyprojecttoml", source_line)])
