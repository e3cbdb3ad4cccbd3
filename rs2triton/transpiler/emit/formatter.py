"""Formatting with ruff, pinned and ``--isolated``: for the modules the printer could not
lay out itself (see ``printer.py``'s layout mode; usually none).

One ruff process formats every such module of a process (:func:`format_batch`), so the
output does not depend on a user's ruff configuration and is byte-identical everywhere.
The formatter's identity (:func:`ruff_binary`) is part of every transpile-cache key, so
this module stays light: the cached path imports it and nothing else of rendering.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def ruff_binary() -> str:
    """The ruff executable of the ``ruff`` package installed with rs2triton."""
    if os.name == "posix" and sys.prefix != sys.base_prefix:
        # In a virtual environment, where ruff's own lookup looks first (its scripts folder),
        # without importing sysconfig for it.
        here = os.path.join(sys.prefix, "bin", "ruff")
        if os.path.isfile(here):
            return here
    from ruff import find_ruff_bin

    return find_ruff_bin()


def format_code(text: str) -> str:
    """Format with ruff (isolated from any project config, so output is the same everywhere)."""
    return format_batch([text])[0]


def format_batch(texts: list[str], while_waiting: Callable[[], None] | None = None) -> list[str]:
    """Format many modules with one ruff process (isolated from any project config).

    One module goes through stdin; several are written to a temporary folder and ruff
    formats them all in one call (in parallel). ``while_waiting`` runs in this process
    while ruff works. The layout is ruff's either way: the same bytes as formatting
    each module on its own.
    """
    if not texts:
        if while_waiting:
            while_waiting()
        return []
    import subprocess

    if len(texts) == 1:
        proc = subprocess.Popen([ruff_binary(), "format", "--isolated", "--stdin-filename", "generated.py", "-"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if while_waiting:
            while_waiting()
        out, err = proc.communicate(texts[0].encode())
        _check(proc.returncode, err, texts)
        return [out.decode()]
    import tempfile

    with tempfile.TemporaryDirectory(prefix="rs2triton-format-", dir=_scratch_dir()) as tmp:
        paths = [Path(tmp) / f"m{i}.py" for i in range(len(texts))]
        for p, t in zip(paths, texts, strict=True):
            p.write_bytes(t.encode())
        # Files named one by one: a folder could fall under ruff's default excludes.
        proc = subprocess.Popen([ruff_binary(), "format", "--isolated", "--no-cache", "--quiet", *map(str, paths)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if while_waiting:
            while_waiting()
        _out, err = proc.communicate()
        _check(proc.returncode, err, texts)
        return [p.read_bytes().decode() for p in paths]


@lru_cache(maxsize=1)
def _scratch_dir() -> str | None:
    """Where ruff's input files go: a RAM-backed folder when the system has one.

    Deleting a few dozen small files on a disk-backed /tmp cost a tenth of a cold
    transpile on the development machine; on /dev/shm it costs nothing.
    """
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return None


def _check(returncode: int, stderr: bytes, texts: list[str]) -> None:
    if returncode != 0:
        raise RuntimeError("ruff could not format generated code (a bug in rs2triton):\n"
                           f"{stderr.decode()}\n" + "\n\n".join(texts))
