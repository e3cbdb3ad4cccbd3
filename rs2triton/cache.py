"""The transpile cache: generated text kept per input, so unchanged files are not lowered again.

An entry is keyed by everything that decides a module's text:

- the Rust source bytes and the path printed in the module's header;
- rs2triton itself: its version and the bytes of every file in the package (code and
  templates), so an edited or upgraded rs2triton never serves old output;
- the formatter (the ruff binary's path, size and modification time) and Python's
  ``major.minor`` (``ast.unparse`` may print differently across versions);
- project options: any settings that shape the output (for example a ``[tool.rs2triton]``
  table) are passed to :func:`fingerprint` as a mapping and hashed with the rest.

Entries live under ``$RS2TRITON_CACHE_DIR`` (default ``~/.cache/rs2triton``) in
``transpile/``; ``RS2TRITON_NO_CACHE=1`` (or ``--no-cache``) turns the cache off. A
missing, unreadable or corrupt entry is simply a miss. Only files that transpiled
without errors are stored, with their warnings and, when ``rs2triton.load`` stored
them, the generated-line -> Rust-line map.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from .diagnostics import Diagnostic

FORMAT = 1  # bump when the entry layout changes


def cache_dir() -> Path:
    root = os.environ.get("RS2TRITON_CACHE_DIR")
    if root:
        return Path(root)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rs2triton"


def enabled() -> bool:
    return os.environ.get("RS2TRITON_NO_CACHE", "") in ("", "0")


def default(options: Mapping[str, object] | None = None) -> Cache | None:
    """The cache for this run: None when turned off or when there is nowhere to keep it.

    ``options``: every project setting that shapes the generated text (for example a
    ``[tool.rs2triton]`` table); they are part of every key, so changing one regenerates.
    """
    if not enabled():
        return None
    try:
        return Cache(options)
    except (OSError, RuntimeError, KeyError):  # no home folder, no ruff binary to identify: run uncached
        return None


PACKAGE_ROOT = Path(__file__).resolve().parent


@lru_cache(maxsize=4)
def package_digest(root: Path = PACKAGE_ROOT) -> str:
    """The bytes of every file rs2triton ships (code, templates; the version is in ``__init__.py``)."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.suffix in (".py", ".j2") and "__pycache__" not in p.parts:
            h.update(p.relative_to(root).as_posix().encode() + b"\0")
            h.update(p.read_bytes() + b"\0")
    return h.hexdigest()


def _formatter_identity() -> str:
    from .render import ruff_binary

    ruff = ruff_binary()
    try:
        st = os.stat(ruff)
    except OSError:
        return ruff
    return f"{ruff}:{st.st_size}:{st.st_mtime_ns}"


def fingerprint(options: Mapping[str, object] | None = None) -> str:
    """A digest of everything except the input itself that affects generated text."""
    from . import __version__

    h = hashlib.sha256()
    h.update(f"format {FORMAT}\nrs2triton {__version__}\npackage {package_digest()}\n".encode())
    h.update(f"python {sys.version_info[0]}.{sys.version_info[1]}\nruff {_formatter_identity()}\n".encode())
    h.update(json.dumps(dict(options or {}), sort_keys=True, default=str).encode())
    return h.hexdigest()


class Cache:
    """Generated text (and warnings) per input, under one :func:`fingerprint`."""

    def __init__(self, options: Mapping[str, object] | None = None, root: Path | None = None):
        self.fingerprint = fingerprint(options)
        self.root = (root or cache_dir()) / "transpile"

    def key(self, source: bytes, display: str, options: str = "") -> str:
        """``options``: per-file settings that shape the text (launchers, the tuning tables that apply)."""
        h = hashlib.sha256(self.fingerprint.encode())
        h.update(b"\0" + display.encode("utf-8", "surrogateescape") + b"\0")
        h.update(options.encode() + b"\0")
        h.update(source)
        return h.hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> tuple[str | None, list[Diagnostic], dict[int, int] | None] | None:
        """(text, warnings, line map or None if it was not stored), or None on a miss."""
        try:
            entry = json.loads(self._path(key).read_bytes())
            line_map = entry.get("line_map")
            return (entry["text"], [Diagnostic(**w) for w in entry["warnings"]],
                    None if line_map is None else {int(k): v for k, v in line_map.items()})
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None

    def put(self, key: str, text: str | None, warnings: list[Diagnostic],
            line_map: dict[int, int] | None = None) -> None:
        path = self._path(key)
        entry = {"text": text, "warnings": [vars(w) for w in warnings], "line_map": line_map}
        try:
            write_atomic(path, json.dumps(entry))
        except OSError:  # a read-only or full cache folder only costs speed
            pass


def write_atomic(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all (a temp file beside it, then a rename), so a reader
    in another process never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
