"""``#[cfg(...)]`` as rustc evaluates it, for the items rs2triton translates.

An item whose ``cfg`` predicate is false does not exist for rustc, so it is not translated.
The options that are set: the crate's features (``feature = "training"``), ``debug_assertions``
(a debug build, as ``cargo build`` and ``cargo test`` make), the target of the GPU machines
(``target_os = "linux"``, ``target_arch = "x86_64"``, ``unix``...); ``test`` is not (the
translation is no test build). Predicates are ``all(...)``, ``any(...)``, ``not(...)``, a name
or ``name = "value"``.

The crate's features come from the ``[features]`` table of the nearest ``Cargo.toml`` above the
source file (its ``default`` list, followed through features that enable others); a file in
no crate gets teenygrad's kernel crate's defaults, ``cuda`` and ``training``.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

DEFAULT_FEATURES = frozenset({"cuda", "training"})  # teeny-kernels' `default` features
TARGET = {"target_os": "linux", "target_family": "unix", "target_arch": "x86_64", "target_pointer_width": "64",
          "target_endian": "little", "panic": "unwind"}
NAMES = frozenset({"debug_assertions", "unix"})

_TOKEN = re.compile(r'\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<str>"(?:[^"\\]|\\.)*")|(?P<punct>[(),=]))')


class CfgError(ValueError):
    """A predicate rustc would reject (``cfg(feature)`` with no value is fine; ``cfg(all(``... is not)."""


def evaluate(predicate: str, features: frozenset[str]) -> bool:
    """The value of a cfg predicate (the text inside ``cfg(...)``) with these features enabled."""
    tokens = _tokenize(predicate)
    value, pos = _parse(tokens, 0, features)
    if pos != len(tokens):
        raise CfgError(f"unexpected `{tokens[pos][1]}` in `cfg({predicate})`")
    return value


def _tokenize(s: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(s):
        if s[pos:].strip() == "":
            break
        m = _TOKEN.match(s, pos)
        if m is None:
            raise CfgError(f"cannot read `cfg({s})`")
        kind = m.lastgroup or "punct"
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def _parse(tokens: list[tuple[str, str]], pos: int, features: frozenset[str]) -> tuple[bool, int]:
    if pos >= len(tokens) or tokens[pos][0] != "name":
        raise CfgError("a cfg predicate starts with a name")
    word = tokens[pos][1]
    pos += 1
    if word in ("all", "any", "not") and pos < len(tokens) and tokens[pos][1] == "(":
        pos += 1
        values = []
        while pos < len(tokens) and tokens[pos][1] != ")":
            v, pos = _parse(tokens, pos, features)
            values.append(v)
            if pos < len(tokens) and tokens[pos][1] == ",":
                pos += 1
        if pos >= len(tokens):
            raise CfgError(f"unclosed `{word}(`")
        pos += 1
        if word == "not":
            if len(values) != 1:
                raise CfgError("`not()` takes one predicate")
            return not values[0], pos
        return (all(values) if word == "all" else any(values)), pos
    if pos < len(tokens) and tokens[pos][1] == "=":
        if pos + 1 >= len(tokens) or tokens[pos + 1][0] != "str":
            raise CfgError(f"`{word} =` needs a string")
        value = tokens[pos + 1][1][1:-1]
        pos += 2
        if word == "feature":
            return value in features, pos
        return TARGET.get(word) == value, pos
    return word in NAMES, pos


def crate_features(directory: str) -> frozenset[str]:
    """The features a default build of the crate holding ``directory`` enables (its manifest as it
    is now: an edited one is read again)."""
    for manifest, stamp in _manifests(directory):
        data = _manifest(manifest, stamp)
        if not isinstance(data, dict):
            return DEFAULT_FEATURES  # (unreadable: said by manifest_problem, as a located warning)
        if "package" not in data:
            continue  # a workspace's manifest: the crate's is further up, or there is none
        table = data.get("features") or {}
        enabled: set[str] = set()
        todo = list(table.get("default") or [])
        while todo:
            f = todo.pop()
            if not isinstance(f, str) or "/" in f or f.startswith("dep:") or f in enabled:
                continue
            enabled.add(f)
            todo += [g for g in table.get(f) or [] if isinstance(g, str)]
        return frozenset(enabled)
    return DEFAULT_FEATURES


def manifest_problem(directory: str) -> tuple[str, int, int, str] | None:
    """Why the nearest ``Cargo.toml`` above ``directory`` cannot be read, where: (its path, line,
    column, message); None where there is none or it reads. cargo would refuse to build; here
    `#[cfg(feature = ...)]` then sees teenygrad's default features, and the caller says so."""
    for manifest, stamp in _manifests(directory):
        data = _manifest(manifest, stamp)
        return (manifest, *data) if isinstance(data, tuple) else None
    return None


def _manifests(directory: str) -> Iterator[tuple[str, tuple[int, int]]]:
    """The ``Cargo.toml`` files in ``directory`` and the folders above it, nearest first: (path,
    (modification time, size)). (One stat a folder: every file of a run asks.)"""
    folder = os.path.abspath(directory)
    while True:
        manifest = os.path.join(folder, "Cargo.toml")
        try:
            info = os.stat(manifest)
        except OSError:
            info = None
        if info is not None and stat.S_ISREG(info.st_mode):
            yield manifest, (info.st_mtime_ns, info.st_size)
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


@lru_cache(maxsize=16)
def _manifest(path: str, stamp: tuple[int, int]) -> dict[str, Any] | tuple[int, int, str] | None:
    """A manifest's tables, or why it cannot be read: (line, column, message); None with no TOML
    reader (Python 3.10). Read once while it is unchanged (``stamp``: its modification time and
    size): a crate's files share it."""
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10: no TOML reader in the standard library
        return None
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        return 1, 1, f"cannot read it ({e})"
    except tomllib.TOMLDecodeError as e:
        import re

        at = re.search(r"at line (\d+), column (\d+)", str(e))
        line, col = (int(at.group(1)), int(at.group(2))) if at else (1, 1)
        return line, col, f"it is not valid TOML ({str(e).split(' (at line')[0]})"
