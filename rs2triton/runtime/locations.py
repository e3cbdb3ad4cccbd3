"""Compiled kernels located in their Rust source.

Triton stamps every operation it builds with the location of the Python node it came from
(``loc("file":line:col)`` in TTIR and TTGIR, debug info in LLVM IR, ``.file``/``.loc`` in PTX,
the cubin's line table, the AMD assembly), and ncu, compute-sanitizer, Proton and cuda-gdb name
source lines from those. A generated module ends with a call of :func:`locate`, which gives
each ``@triton.jit`` function of the module the Rust file and Rust lines instead: the name
Triton reads as the function's file becomes the ``.rs`` path, and the tree Triton compiles
(``JITFunction.parse``) has each node's line number set so that Triton's arithmetic
(``the def line - 1 + node.lineno``) gives the Rust line of the statement the node belongs to.
This happens once, when the module is imported: a launch pays nothing. Under Triton's
interpreter nothing changes (it runs the Python functions themselves).

The map is the module's own (each generated line's Rust line, as the printer recorded it),
written into the module as a short string (:func:`encode`); :func:`locate` also records it as
``__rs2triton_line_map__`` (with ``__rs2triton_source__``) for the errors the runtime reports at
the Rust line (:mod:`rs2triton.runtime.errors`), so a module written by a plain
``rs2triton transpile`` reports them as one made by ``rs2triton.load`` does.

``RS2TRITON_TRACE=folder`` (or :func:`trace`) writes a tritonparse trace of each compilation
whose source pane is the Rust file.

The file is named as the module's header names it (relative to the project), made absolute
where that file is found from the module's folder or its parents (or the working folder), so
that a profiler run from anywhere opens it; a module ``rs2triton.load`` made names the path it
was given, resolved.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any


def encode(mapping: dict[int, int]) -> str:
    """``{generated line: Rust line}`` as runs of consecutive lines, ``start:r,r*k,...`` (``r*k``:
    ``k`` lines of Rust line ``r``), separated by ``;``."""
    runs: list[str] = []
    lines = sorted(mapping)
    i = 0
    while i < len(lines):
        start = j = i
        while j + 1 < len(lines) and lines[j + 1] == lines[j] + 1:
            j += 1
        values = [mapping[lines[k]] for k in range(start, j + 1)]
        parts: list[str] = []
        k = 0
        while k < len(values):
            n = 1
            while k + n < len(values) and values[k + n] == values[k]:
                n += 1
            parts.append(f"{values[k]}*{n}" if n > 1 else str(values[k]))
            k += n
        runs.append(f"{lines[start]}:{','.join(parts)}")
        i = j + 1
    return ";".join(runs)


def decode(text: str) -> dict[int, int]:
    """The map :func:`encode` wrote."""
    out: dict[int, int] = {}
    for run in filter(None, text.split(";")):
        start, _, values = run.partition(":")
        line = int(start)
        for part in values.split(","):
            value, _, count = part.partition("*")
            for _ in range(int(count or 1)):
                out[line] = int(value)
                line += 1
    return out


def locate(namespace: dict[str, Any], source: str, lines: str) -> None:
    """Give the ``@triton.jit`` functions of the module whose globals are ``namespace`` the Rust
    file ``source`` (as the header names it) and the Rust lines of ``lines`` (:func:`encode`)."""
    mapping = decode(lines)
    namespace.setdefault("__rs2triton_source__", source)
    namespace.setdefault("__rs2triton_line_map__", mapping)
    try:
        from triton.runtime.jit import JITFunction
    except ImportError:  # pragma: no cover - generated modules import triton first
        return
    if os.environ.get("RS2TRITON_TRACE"):
        trace(os.environ["RS2TRITON_TRACE"], origin=f"RS2TRITON_TRACE={os.environ['RS2TRITON_TRACE']}")
    module = namespace.get("__name__")
    file = _resolve(str(namespace["__rs2triton_source__"]), namespace.get("__file__"))
    for value in list(namespace.values()):
        if isinstance(value, JITFunction) and getattr(value.fn, "__module__", None) == module:
            _attach(value, file, mapping)


_TRACING: list[str] = []


class TraceError(RuntimeError):
    """The trace ``RS2TRITON_TRACE`` (or :func:`trace`) asks for cannot be written safely: the
    folder is not one (a file is there), cannot be made or written, or another user could have
    put something in it (``rs2triton/trust.py``)."""


class TracerMissing(TraceError, ImportError):
    """A trace is asked for, and tritonparse, which writes it, is not installed."""


def trace(folder: str | os.PathLike[str], *, origin: str | None = None) -> None:
    """Write a tritonparse trace of every compilation from now on into ``folder`` (once a process;
    ``RS2TRITON_TRACE=folder`` does it when a generated module is imported). tritonparse reads
    the kernel's source where its function says it is, which for a located kernel is the Rust
    file: with the whole file taken (``enable_full_python_source``), its source pane is the Rust
    and its parser (``tritonparse parse``) links each IR line to its Rust line. Needs the
    ``tritonparse`` package (else :class:`TracerMissing`).

    The trace holds the Rust source, so the folder follows the cache's rule (:func:`rs2triton.trust.
    untrusted_folder`: this user's, and every folder up to ``/`` root's or this user's, writable by
    nobody else), else :class:`TraceError`; a missing folder is made (0700). Each trace file is
    new (``O_EXCL``), this user's alone (0600) and never opened through a symlink (``O_NOFOLLOW``)."""
    if _TRACING:
        return
    where = origin or f"rs2triton.trace({os.fspath(folder)!r})"
    try:
        from tritonparse import structured_logging
    except ImportError:
        raise TracerMissing(f"{where}: writing a trace needs tritonparse, which is not installed: "
                            "pip install tritonparse") from None
    from rs2triton.trust import untrusted_folder

    try:
        why = untrusted_folder(folder)
    except (FileExistsError, NotADirectoryError):
        raise TraceError(f"{where}: not a folder (a file is in the way)") from None
    except OSError as e:
        raise TraceError(f"{where}: the folder cannot be made or reached ({e.strerror or e})") from None
    if why is not None:
        raise TraceError(f"{where}: not writing a trace (it holds the Rust source) where another user could "
                         f"reach it: {why}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise TraceError(f"{where}: the folder is not writable")
    structured_logging.init(str(folder), enable_full_python_source=True)
    # tritonparse opens its trace files with `open` (append): in its module, `open` is this one
    setattr(structured_logging, "open", open_trace_file)  # noqa: B010
    _TRACING.append(str(folder))


def open_trace_file(file: str | os.PathLike[str], mode: str = "r", *args: Any, **kwargs: Any) -> Any:
    """``open`` as tritonparse's logging calls it: a file it reads is opened as ``open`` opens it,
    a file it writes is a new file of this user's alone (:func:`rs2triton.trust.create_private`);
    where the name is taken (by a trace of an earlier process of the same pid, or a symlink
    planted there), the next free name, ``..._1.ndjson`` and on, is used instead."""
    if not any(c in mode for c in "wax+"):
        return open(file, mode, *args, **kwargs)
    from rs2triton.trust import create_private

    path = os.fspath(file)
    base, ext = path, ""
    for suffix in (".bin.ndjson", ".ndjson", ".clp"):
        if path.endswith(suffix):
            base, ext = path[: -len(suffix)], suffix
            break
    for n in range(1000):
        try:
            return create_private(f"{base}{n}{ext}" if n else path, mode)
        except FileExistsError:
            continue
    raise FileExistsError(17, "every trace file name is taken", path)


def find_source(shown: str, folder: Path) -> str | None:
    """The Rust file a generated module names (relative to the output's folder's parent, or the
    project's root, as rs2triton writes it), where it can be read: from ``folder`` (the module's)
    up, then the working folder."""
    p = Path(shown)
    if p.is_absolute():
        return shown if p.is_file() else None
    for base in (folder, *folder.parents, Path.cwd()):
        if (base / p).is_file():
            return str(base / p)
    return None


def _resolve(shown: str, module_file: str | None) -> str:
    """``shown`` made absolute where the file is found (:func:`find_source`); as it is otherwise."""
    if Path(shown).is_absolute():
        return shown
    found = find_source(shown, Path(module_file).resolve().parent if module_file else Path.cwd())
    return os.path.normpath(found) if found is not None else shown


def _attach(jit: Any, file: str, mapping: dict[int, int]) -> None:
    """Triton compiles ``jit`` with its locations in ``file`` at the lines ``mapping`` gives."""
    raw = getattr(jit, "raw_src", None)
    start = getattr(jit, "starting_line_number", None)
    if not isinstance(raw, list) or not isinstance(start, int):  # (a Triton this does not know)
        return
    at_def = next((i for i, line in enumerate(raw) if line.lstrip().startswith("def ")), 0)
    def_line = start + at_def  # the module line of `def`, which Triton's parse numbers 1
    own = [mapping[line] for line in range(def_line, start + len(raw)) if line in mapping]
    if not own:
        return
    first = own[0]
    parse = jit.parse

    def located_parse() -> ast.Module:
        tree: ast.Module = parse()
        for node in ast.walk(tree):
            lineno = getattr(node, "lineno", None)
            if isinstance(lineno, int):
                line = def_line + lineno - 1
                # (the generated line, which errors name: runtime/errors.py)
                setattr(node, "rs2triton_line", line)  # noqa: B010
                setattr(node, "lineno", mapping.get(line) or _above(mapping, line, def_line) or first)  # noqa: B010
                setattr(node, "col_offset", 0)  # noqa: B010
        return tree

    jit.parse = located_parse
    # Triton's base line becomes 0 (3.9: the def line it was given; 3.6: the first line plus the
    # decorators'), so that a node's line is its Rust line. The first line is part of Triton's
    # cache key: kernels compiled before with the generated file's lines are not reused.
    jit.starting_line_number = 1 - at_def
    jit.def_file_line_number = 1
    jit.def_file_col_number = 1
    jit.file_name = file
    jit.fn.__code__ = jit.fn.__code__.replace(co_filename=file)
    jit.__class__ = _located_type(type(jit))
    jit.hash = None


_LOCATED_TYPES: dict[type, type] = {}


def _located_type(cls: Any) -> type:
    """Triton's ``JITFunction`` class ``cls`` with the kernel's file in its cache key. Triton keys a
    kernel by its text and first line, not its file: two copies of a kernel in two Rust files
    would share what Triton compiled (in memory and on disk), and the second's IR (its ``loc``,
    its line table) would name the first's file. The key is Triton's, with the file hashed in."""
    located = _LOCATED_TYPES.get(cls)
    if located is None:
        base = cls.cache_key

        def cache_key(self: Any) -> str:  # (self: a JITFunction)
            key = base.fget(self)
            memo: tuple[str, str] | None = self.__dict__.get("rs2triton_key")
            if memo is None or memo[0] != key:
                import hashlib

                memo = (key, hashlib.sha256(f"{key}\0{self.file_name}".encode()).hexdigest())
                self.__dict__["rs2triton_key"] = memo
            return memo[1]

        located = type(cls.__name__, (cls,), {"cache_key": property(cache_key), "__module__": cls.__module__,
                                              "__qualname__": cls.__qualname__})
        _LOCATED_TYPES[cls] = located
    return located


def _above(mapping: dict[int, int], line: int, def_line: int) -> int | None:
    """The Rust line of the nearest mapped line above ``line`` in the function (an `else:`)."""
    for up in range(line - 1, def_line - 1, -1):
        if up in mapping:
            return mapping[up]
    return None
