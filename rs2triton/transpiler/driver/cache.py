"""The transpile cache: generated text kept per input, so unchanged files are not lowered again.

An entry is keyed by everything that decides a module's text:

- the Rust source bytes and the path printed in the module's header;
- rs2triton itself: its version and the bytes of every file in the package (code and
  templates), so an edited or upgraded rs2triton never serves old output;
- Python's ``major.minor`` (what compiles the generated modules before they are written);
- project options: any settings that shape the output (for example a ``[tool.rs2triton]``
  table) are passed to :func:`fingerprint` as a mapping and hashed with the rest.

Entries live in one SQLite file, ``transpile.sqlite3`` under ``$RS2TRITON_CACHE_DIR``
(default ``~/.cache/rs2triton``); ``RS2TRITON_NO_CACHE=1`` (or ``--no-cache``) turns the
cache off. A run reads all its keys in one query and writes all its new entries in one
transaction. A missing, unreadable or damaged entry or file is simply a miss. Only files
that transpiled without errors are stored, with their warnings and the generated-line ->
Rust-line map (read only by ``rs2triton.load``, which needs it). Entries not read
or written for :data:`KEEP_DAYS` days are deleted (checked at most once a day).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import stat
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from rs2triton.diagnostics import Diagnostic
from rs2triton.trust import not_private, untrusted_folder


def _digest(data: bytes = b"") -> hashlib.blake2b:
    return hashlib.blake2b(data, digest_size=32)

FORMAT = 2  # bump when the entry layout changes (a file of another format is started afresh)


def configured_dir() -> Path:
    """Where the cache is asked to be: ``RS2TRITON_CACHE_DIR``, else ``$XDG_CACHE_HOME/rs2triton``
    or ``~/.cache/rs2triton``."""
    root = os.environ.get("RS2TRITON_CACHE_DIR")
    if root:
        return Path(root)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rs2triton"


def cache_dir() -> Path:
    """The cache folder this process uses: the configured one where only this user could have
    put what is in it (:func:`untrusted`), else a private folder of this process's own, said
    once (the cache's trust model: docs/usage.md)."""
    folder = configured_dir()
    why = untrusted(folder)
    if why is None:
        return folder
    return _private(folder, why)


def untrusted(folder: Path) -> str | None:
    """Why ``folder`` (the cache) may hold what another user put there, or None: as ssh's
    StrictModes treats keys, the folder and every folder on the way to it are checked
    (``rs2triton/trust.py``: a symlinked folder is followed, and must pass as its target), and
    its database and module folder must be this user's, writable by nobody else and no
    symlinks. A folder not there yet is made private (0700)."""
    try:
        why = untrusted_folder(folder)
    except OSError:
        return None  # (nowhere to keep it, or nothing there to reach: the callers run uncached, or say so)
    if why is not None:
        return why
    for path in (folder / DB_NAME, folder / "modules"):
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as e:
            return f"{path} cannot be checked ({e.strerror or e})"
        if stat.S_ISLNK(st.st_mode):
            return f"{path} is a symlink"
        why = not_private(st)
        if why is not None:
            return f"{path} {why}"
    return None


_PRIVATE: dict[str, Path] = {}


def _private(folder: Path, why: str) -> Path:
    """A private cache folder for this process (removed at exit), in place of ``folder``; the
    first time, a warning says which folder was not used and why."""
    if str(folder) not in _PRIVATE:
        import atexit
        import shutil
        import tempfile
        import warnings

        private = Path(tempfile.mkdtemp(prefix="rs2triton-cache-"))
        atexit.register(shutil.rmtree, private, True)
        _PRIVATE[str(folder)] = private
        warnings.warn(f"rs2triton: not using the cache at {folder}: {why}; this process uses a private one "
                      "(make the folder yours and not writable by others, or set RS2TRITON_CACHE_DIR)",
                      RuntimeWarning, stacklevel=3)
    return _PRIVATE[str(folder)]


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
    except (OSError, RuntimeError, KeyError):  # no home folder: run uncached
        return None


PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # rs2triton/


@lru_cache(maxsize=4)
def package_digest(root: Path = PACKAGE_ROOT) -> str:
    """The bytes of every file rs2triton ships (code, templates; the version is in ``__init__.py``)."""
    h = _digest()
    names = []  # (path parts relative to root): the order Path sorting gives
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        rel = os.path.relpath(folder, root)
        parts = () if rel == "." else tuple(rel.split(os.sep))
        names += [(*parts, f) for f in files if f.endswith((".py", ".j2"))]
    for parts in sorted(names):
        h.update("/".join(parts).encode() + b"\0")
        with open(os.path.join(root, *parts), "rb") as f:
            h.update(f.read() + b"\0")
    return h.hexdigest()


def fingerprint(options: Mapping[str, object] | None = None) -> str:
    """A digest of everything except the input itself that affects generated text."""
    from rs2triton.version import __version__

    h = _digest()
    h.update(f"format {FORMAT}\nrs2triton {__version__}\npackage {package_digest()}\n".encode())
    h.update(f"python {sys.version_info[0]}.{sys.version_info[1]}\n".encode())
    h.update(_json(dict(options or {})).encode())
    return h.hexdigest()


def _json(value: object) -> str:
    """``value`` as canonical JSON."""
    return json.dumps(value, sort_keys=True, default=str)


Entry = tuple[str | None, list[Diagnostic], dict[int, int] | None]
T = TypeVar("T")
"""(text or None for a file without kernels, warnings, line map or None when not stored)."""

DB_NAME = "transpile.sqlite3"
MODULE_HEADER = "# Generated by rs2triton from "  # how every module begins (emit/module.py's HEADER_PREFIX)


def is_module(text: str | None) -> bool:
    """Whether an entry's text can be a module rs2triton wrote (None: a file without kernels);
    anything else found in the file is a miss, never written out as a module."""
    return text is None or text.startswith(MODULE_HEADER)
KEEP_DAYS = 30  # entries nobody has read or written for this many days are deleted (checked once a day)
BUSY_TIMEOUT_S = 5.0  # how long to wait for another process's write before running uncached
_CHUNK = 500  # keys per query (SQLite allows at least 999 parameters)

# A rollback journal kept between writes (TRUNCATE) and no fsync: measured cheaper here than
# WAL (which creates and maps two more files), and it lets a read-only folder still be read.
# An OS crash mid-write may damage the file; a damaged file is detected and replaced.
_SCHEMA = (
    """CREATE TABLE entries (
        key TEXT PRIMARY KEY,
        used INTEGER NOT NULL,  -- the day (since 1970) it was last written or read
        text TEXT,              -- NULL: the input holds no kernels
        warnings TEXT NOT NULL, -- a JSON list of Diagnostic fields
        line_map TEXT           -- JSON {generated line: Rust line}; NULL when not stored
    )""",
    "CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",  # ("pruned", the day it last was)
)


def today() -> int:
    return int(time.time() // 86400)


class Cache:
    """Generated text (and warnings) per input, under one :func:`fingerprint`, in one SQLite file.

    Every method turns a failure (no folder, read-only folder, full disk, a lock held too
    long, a damaged file) into a miss or a skipped write: the cache only ever costs speed.
    A file that is not a database, or a damaged one, is deleted and started afresh.
    """

    def __init__(self, options: Mapping[str, object] | None = None, root: Path | None = None):
        self.fingerprint = fingerprint(options)
        self.path = (root or cache_dir()) / DB_NAME
        self._con: sqlite3.Connection | None = None
        self._pid = 0

    def key(self, source: bytes, display: str, options: str = "") -> str:
        """``options``: per-file settings that shape the text (launchers, the tuning tables that apply)."""
        h = _digest(self.fingerprint.encode())
        h.update(b"\0" + display.encode("utf-8", "surrogateescape") + b"\0")
        h.update(options.encode() + b"\0")
        h.update(source)
        return h.hexdigest()

    def get(self, key: str) -> Entry | None:
        """(text, warnings, line map or None if it was not stored), or None on a miss."""
        return self.get_many([key], line_maps=True).get(key)

    def get_many(self, keys: list[str], *, line_maps: bool = False) -> dict[str, Entry]:
        """The entries found among ``keys`` (line maps only with ``line_maps``); marks them used today."""
        return self._run(lambda con: self._select(con, list(dict.fromkeys(keys)), line_maps), {})

    def put(self, key: str, text: str | None, warnings: list[Diagnostic],
            line_map: dict[int, int] | None = None) -> None:
        self.put_many([(key, text, warnings, line_map)])

    def put_many(self, entries: list[tuple[str, str | None, list[Diagnostic], dict[int, int] | None]]) -> None:
        """Store every (key, text, warnings, line map or None) in one transaction.

        A stored line map is kept when an entry is written again without one.
        """
        if not entries:
            return
        day = today()
        rows = [(key, day, text, _json([vars(w) for w in warnings]),
                 None if line_map is None else _json(line_map)) for key, text, warnings, line_map in entries]
        sql = ("INSERT OR REPLACE INTO entries (key, used, text, warnings, line_map) VALUES "
               "(?1, ?2, ?3, ?4, coalesce(?5, (SELECT line_map FROM entries WHERE key = ?1)))")
        self._run(lambda con: self._write(con, sql, rows), None, retry=True)

    def _select(self, con: sqlite3.Connection, keys: list[str], line_maps: bool) -> dict[str, Entry]:
        found: dict[str, Entry] = {}
        stale: list[tuple[str]] = []
        day = today()
        for i in range(0, len(keys), _CHUNK):
            chunk = keys[i:i + _CHUNK]
            rows = con.execute(f"SELECT key, used, text, warnings, {'line_map' if line_maps else 'NULL'} "
                               f"FROM entries WHERE key IN ({','.join('?' * len(chunk))})", chunk)
            for key, used, text, warnings, line_map in rows:
                # SQLite keeps whatever type a row was given: one of the wrong types is a miss
                if not (text is None or type(text) is str) or type(used) is not int or type(warnings) is not str \
                        or not (line_map is None or type(line_map) is str):
                    continue
                try:
                    entry = (text, [Diagnostic(**w) for w in json.loads(warnings)],
                             None if line_map is None else {int(k): int(v) for k, v in json.loads(line_map).items()})
                except (ValueError, TypeError, AttributeError):  # a garbled entry: a miss
                    continue
                if not all(isinstance(getattr(d, f), str) for d in entry[1] for f in ("code", "message", "path")):
                    continue
                found[key] = entry
                if used < day:
                    stale.append((key,))
        if stale:  # (at most once a day per entry: a read costs no write)
            with contextlib.suppress(sqlite3.Error):
                self._write(con, f"UPDATE entries SET used = {day} WHERE key = ?", stale)
        return found

    def _write(self, con: sqlite3.Connection, sql: str, rows: Sequence[tuple[object, ...]]) -> None:
        """``sql`` for every row, in one transaction; also, once a day, delete long-unused entries."""
        with _transaction(con):
            con.executemany(sql, rows)
            day = today()
            pruned = con.execute("SELECT value FROM meta WHERE name = 'pruned'").fetchone()
            if pruned is None or pruned[0] < day:
                con.execute("DELETE FROM entries WHERE used < ?", (day - KEEP_DAYS,))
                con.execute("INSERT OR REPLACE INTO meta VALUES ('pruned', ?)", (day,))

    def _run(self, op: Callable[[sqlite3.Connection], T], default: T, retry: bool = False) -> T:
        """``op(connection)``, or ``default`` on any failure. A damaged file (or one that is not a
        database) is deleted, so that later runs start a fresh one; with ``retry``, ``op`` then
        runs again on the fresh file."""
        for _ in range(2 if retry else 1):
            try:
                return op(self._connection())
            except (sqlite3.Error, OSError) as e:
                self.close()
                if type(e) is not sqlite3.DatabaseError:  # (locked, read-only, full: not the file's fault)
                    return default
                for suffix in ("", "-journal", "-wal", "-shm"):
                    with contextlib.suppress(OSError):
                        os.unlink(f"{self.path}{suffix}")
        return default

    def _connection(self) -> sqlite3.Connection:
        if self._con is not None and self._pid == os.getpid():
            return self._con
        self._con = None  # (one inherited through fork is never used)
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fresh = not self.path.exists()
        con = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        if fresh:  # (this user's alone, whatever the umask: see untrusted)
            with contextlib.suppress(OSError):
                os.chmod(self.path, 0o600)
        try:
            con.execute("PRAGMA journal_mode = TRUNCATE")
            con.execute("PRAGMA synchronous = OFF")
            if con.execute("PRAGMA user_version").fetchone()[0] != FORMAT:  # new, or another format
                with _transaction(con):
                    if con.execute("PRAGMA user_version").fetchone()[0] != FORMAT:  # (another process may have)
                        con.execute("DROP TABLE IF EXISTS entries")
                        con.execute("DROP TABLE IF EXISTS meta")
                        for statement in _SCHEMA:
                            con.execute(statement)
                        con.execute(f"PRAGMA user_version = {FORMAT}")
        except BaseException:
            con.close()
            raise
        self._con, self._pid = con, os.getpid()
        return con

    def close(self) -> None:
        if self._con is not None and self._pid == os.getpid():
            with contextlib.suppress(sqlite3.Error):
                self._con.close()
        self._con = None


@contextlib.contextmanager
def _transaction(con: sqlite3.Connection) -> Iterator[None]:
    """A write transaction: committed whole, or rolled back."""
    con.execute("BEGIN IMMEDIATE")  # (take the write lock now: two readers both upgrading would deadlock)
    try:
        yield
        con.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            con.execute("ROLLBACK")
        raise


def write_atomic(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all (a temp file beside it, then a rename), so a reader
    in another process never sees half a file."""
    import tempfile  # (only `load` writes files here: command-line runs start without it)

    for folder in reversed([path.parent, *path.parent.parents]):  # (made private, whatever the umask)
        if not folder.exists():
            folder.mkdir(mode=0o700, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)  # (mode 0600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
