"""Files on disk: which outputs a run makes (:func:`plan`), writing them (:func:`write`),
and what is stale (:func:`check`, :func:`orphans`).

Nothing is written until every input has transpiled: :func:`plan` computes all outputs in
memory (serving unchanged inputs from the transpile cache, lowering the others in worker
processes), :func:`write` then writes them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rs2triton.diagnostics import Diagnostic, Lines, TranspileError
from rs2triton.diagnostics import shown_path as shown
from rs2triton.transpiler.driver.cache import is_module
from rs2triton.transpiler.driver.pipeline import (
    Result,
    display_path,
    features_of,
    options_key,
    pyproject_of,
    read,
)
from rs2triton.transpiler.driver.workers import LowerOptions, transpile_many

if TYPE_CHECKING:
    from rs2triton.transpiler.driver.cache import Cache


def discover_sources(srcs: list[str]) -> list[tuple[Path, Path]]:
    """(source file, output path relative to OUTDIR) for every input.

    A file maps to ``<stem>.py``; a directory keeps its sub-folders.
    """
    pairs: list[tuple[Path, Path]] = []
    for s in srcs:
        p = Path(s)
        if p.is_dir():
            for f in sorted(p.rglob("*.rs")):
                rel = f.relative_to(p)
                pairs.append((f, rel.with_suffix(".py")))
        else:
            pairs.append((p, Path(p.stem + ".py")))
    return pairs


_PROJECT_MARKERS = (".git", "pyproject.toml", "Cargo.toml")


def header_roots(outdir: Path) -> tuple[str, ...]:
    """The folders a module's header names its source relative to (see :func:`source_name`): the
    folder that holds the output folder, then the project above it (the nearest folder with
    `.git`, `pyproject.toml` or `Cargo.toml`). Found once per run: they depend on the output alone."""
    base = os.path.dirname(os.path.abspath(outdir))
    project = next((str(d) for d in (Path(base), *Path(base).parents)
                    if any(os.path.exists(os.path.join(d, m)) for m in _PROJECT_MARKERS)), None)
    return (base,) if project is None or project == base else (base, project)


def source_name(src: Path, roots: tuple[str, ...]) -> str:
    """How a module's header names its source, the same however the paths are spelled and
    wherever the command runs: relative to the first of ``roots`` that holds it (`transpile src
    -o out`: `src/relu.rs`), else as given (relative to where the command runs)."""
    s = os.path.abspath(src)
    for root in roots:
        if os.path.commonpath([s, root]) == root:
            return Path(os.path.relpath(s, root)).as_posix()
    return display_path(src)


@dataclass
class _Input:
    """One input of :func:`plan`: its source, its output path relative to OUTDIR, and its
    :class:`Result` or errors (None until it is lowered)."""

    src: Path
    rel: Path
    outcome: Result | TranspileError | None


def plan(srcs: list[str], outdir: str | os.PathLike[str], warnings: list[Diagnostic] | None = None,
         cache: Cache | None = None, jobs: int = 1, line_comments: bool = False, *,
         launchers: bool = True, features: Iterable[str] = (), default_features: bool = True,
         debug: bool = False) -> dict[Path, str]:
    """All output files and their text; raises TranspileError (with every file's errors).

    Warnings (items skipped on purpose) are appended to ``warnings`` when given. With a
    ``cache``, inputs whose generated text is cached are not lowered again, and what is
    generated now is stored. ``jobs`` > 1 lowers files in that many processes (:mod:`.workers`).
    ``line_comments``: every generated statement ends with ``# file.rs:LINE`` (not cached).
    ``debug``: kernels check what Rust's debug build checks (lowering/kernel/debug.py).
    """
    if line_comments:
        cache = None
    from rs2triton.transpiler.driver.tuning import forget_pyprojects

    forget_pyprojects()
    out = Path(outdir)
    files: dict[Path, str] = {}
    errors: list[Diagnostic] = []
    packages: set[Path] = set()
    dir_inputs = {Path(s) for s in srcs if Path(s).is_dir()}
    entries: list[_Input] = []  # one per input, in input order
    todo: list[tuple[int, bytes, str, str | None, LowerOptions]] = []
    roots = header_roots(out)
    for src, rel in discover_sources(srcs):
        display = display_path(src)
        stable = source_name(src, roots)
        name = stable if stable != display else None  # (as given: the key and text `load` makes too)
        try:
            data = read(src)
            pyproject = pyproject_of(src, launchers)
            enabled = features_of(src, features, default_features)
            if warnings is not None and default_features:
                _manifest_warning(src, warnings)
            key = cache.key(data, display, options_key(launchers, pyproject, enabled, name, debug)) \
                if cache is not None else None
        except TranspileError as e:
            entries.append(_Input(src, rel, e))
            continue
        entries.append(_Input(src, rel, None))
        todo.append((len(entries) - 1, data, display, key,
                     {"launchers": launchers, "pyproject": pyproject, "features": enabled, "source_name": name,
                      "debug": debug}))
    hits = cache.get_many([key for *_, key, _ in todo if key is not None]) if cache is not None else {}
    hits = {key: hit for key, hit in hits.items() if is_module(hit[0])}
    for i, _, display, key, _ in todo:
        if key in hits:
            entries[i].outcome = Result(display, hits[key][0], [], hits[key][1])
    todo = [item for item in todo if item[3] not in hits]
    many = transpile_many([(d, disp, opts) for _, d, disp, _, opts in todo], jobs, line_comments)
    for (i, *_), outcome in zip(todo, many, strict=True):
        entries[i].outcome = outcome
    for entry in entries:
        if isinstance(entry.outcome, TranspileError):
            errors.extend(entry.outcome.diagnostics)
    if errors:  # (only now is every fresh result finished, and so fit to cache)
        raise TranspileError(errors)
    results = [_finished(entry) for entry in entries]
    if cache is not None:
        cache.put_many([(key, results[i].text, results[i].warnings, results[i].line_map)
                        for i, _, _, key, _ in todo if key is not None])
    for entry, res in zip(entries, results, strict=True):
        src, rel = entry.src, entry.rel
        if warnings is not None:
            warnings.extend(res.warnings)
        if res.text is None:
            continue
        target = out / rel
        if target in files:
            errors.append(Diagnostic("E0010", f"two inputs would both write {shown(target)}",
                                     src.as_posix(), 1, 1, hint="transpile them into different output folders"))
            continue
        files[target] = res.text
        if any(src.is_relative_to(d) for d in dir_inputs):
            parent = rel.parent
            while True:
                init = out / parent / "__init__.py"
                if init in packages:  # and so are the folders above it
                    break
                packages.add(init)
                if parent == Path("."):
                    break
                parent = parent.parent
    if errors:
        raise TranspileError(errors)
    for init in sorted(packages):  # (a package's own __init__.py, or anything else there, is left as it is)
        if not os.path.lexists(init):
            files.setdefault(init, "")
    return files


def _finished(entry: _Input) -> Result:
    """An input's result, once every input is lowered and none failed."""
    if not isinstance(entry.outcome, Result):
        raise AssertionError(f"{entry.src} was not lowered")  # (plan raises every file's errors first)
    return entry.outcome


def _manifest_warning(src: Path, warnings: list[Diagnostic]) -> None:
    """A located warning, once a run, where the crate's ``Cargo.toml`` cannot be read (its
    default features are then teenygrad's, which `#[cfg(feature = ...)]` sees)."""
    from rs2triton.rust.cfg import manifest_problem

    problem = manifest_problem(str(src.resolve().parent))
    if problem is None:
        return
    path, line, col, why = problem
    shown = os.path.relpath(path)
    path = path if shown.startswith("..") else shown  # (relative to where the command runs, where it can be)
    if any(w.path == path and w.code == "W0011" for w in warnings):
        return
    manifest = Lines.read(path)
    source_line = manifest.text(line) if manifest is not None else None
    warnings.append(Diagnostic("W0011", f"the crate's Cargo.toml cannot be read: {why}", path, line, col, 1,
                               "cargo would refuse it; `#[cfg(feature = ...)]` sees teenygrad's default features "
                               "meanwhile", source_line, severity="warning"))


class Foreign(Exception):
    """An output path holding what rs2triton did not write: a file without its header, or no
    file at all (a FIFO, a device, a socket, a folder, or a symlink to one)."""


_HEADER = b"# Generated by rs2triton from "


def existing(path: Path | str, text: str) -> bytes | None:
    """What is at the output path ``path`` that ``text`` is planned for, read only as far as
    needed: None where nothing is, ``text``'s bytes where they are there already, else the
    first bytes of what is there (a file rs2triton wrote, with other contents). A file without
    rs2triton's header (but an empty ``__init__.py``, which rs2triton writes) or anything that
    is no regular file is :class:`Foreign`: never read, never replaced."""
    import stat

    target = os.fspath(path)
    try:
        st = os.stat(target)  # (through a symlink: what it points at)
    except FileNotFoundError:
        return None  # (nothing, or a dangling symlink: replaced by the file)
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode) \
            else "a socket" if stat.S_ISSOCK(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode) or \
            stat.S_ISBLK(st.st_mode) else "not a regular file"
        link = " (through a symlink)" if os.path.islink(target) else ""
        raise Foreign(f"{shown(target)} is {kind}{link}, not a file rs2triton wrote")
    data = text.encode("utf-8")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # (a FIFO swapped in meanwhile: no wait)
    fd = os.open(target, flags)
    try:
        head = os.read(fd, len(_HEADER))
        if not head.startswith(_HEADER) and not (st.st_size == 0 and os.path.basename(target) == "__init__.py"):
            raise Foreign(f"{shown(target)} exists and was not written by rs2triton (it has no rs2triton header)")
        if st.st_size != len(data):
            return head  # (it differs: no need to read the rest)
        chunks = [head]
        left = len(data) - len(head)
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


TEMP_PREFIX = ".rs2triton-"  # the names of a run's temp files: .rs2triton-<pid>-<random>-<name>


def write(files: dict[Path, str]) -> list[Path]:
    """Write every file, all or nothing; returns the files that changed.

    Every new text goes to a temp file beside its target first (so a full disk or a read-only
    folder stops the run before any target is touched), every target is checked (a folder in
    its way stops it too), and only then are they renamed into place, each old file kept as a
    hard link until all are in; should a rename still fail (an immutable file), the targets
    already replaced get their old files back. A run killed at any moment leaves each target
    old or new. Its temp files (``.rs2triton-<pid>-<8 hex digits>-<name>``, and ``.old`` links)
    are removed by the run itself, whatever stops it (an error, Ctrl-C); rs2triton removes no
    file it did not make in this process, so those of a run that was killed outright stay, and
    are reported (:func:`leftovers`) for the user to delete.
    """
    staged: list[tuple[str, Path]] = []
    made: set[str] = set()  # folders known to exist
    tag = f"{TEMP_PREFIX}{os.getpid()}-{os.urandom(4).hex()}-"
    kept: list[tuple[str, str]] = []  # (the old file's hard link, target) while renaming
    done: list[tuple[str, str | None]] = []  # targets replaced so far, with their old file's link
    foreign = []
    for path, text in sorted(files.items()):
        try:
            existing(path, text)
        except Foreign as e:
            foreign.append(Diagnostic("E0010", str(e), os.fspath(path), 1, 1,
                                      hint="rs2triton replaces only what it wrote: move it, or choose another "
                                           "output folder"))
        except OSError:
            pass  # (unreadable: the write below says why)
    if foreign:
        raise TranspileError(foreign)
    try:
        for path, text in sorted(files.items()):
            target, data = os.fspath(path), text.encode("utf-8")
            try:
                if existing(path, text) == data:
                    continue  # unchanged: not even touched
            except (OSError, Foreign):  # not there yet, or not a file (checked below)
                pass
            folder = os.path.dirname(target) or "."
            if folder not in made:
                os.makedirs(folder, exist_ok=True)
                made.add(folder)
            if os.path.isdir(target) or (os.path.lexists(target) and not os.path.isfile(target)):
                raise IsADirectoryError(21, "a folder or another non-file is in the way", target)
            tmp = os.path.join(folder, tag + os.path.basename(target))
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # (the umask applies, as for any file)
            staged.append((tmp, path))
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
        for tmp, path in staged:
            target = os.fspath(path)
            old = None
            if os.path.exists(target):
                old = f"{tmp}.old"
                os.link(target, old)
                kept.append((old, target))
            os.replace(tmp, target)
            done.append((target, old))
    except BaseException as e:  # (Ctrl-C too: this run's temp files are removed, and only they)
        restored = _undo(done)
        for tmp, _ in staged:
            _unlink(tmp)
        for old, _ in kept:
            _unlink(old)
        if not isinstance(e, OSError):
            raise
        where = e.filename or (staged[-1][1] if staged else "the output folder")
        left = "" if restored else "; some outputs could not be restored to what they were"
        raise TranspileError([Diagnostic("E0010", f"cannot write {shown(where)}: {e.strerror or e}{left}", str(where),
                                         1, 1, hint="check that the output folder is writable and not a file")]) from e
    for old, _ in kept:
        _unlink(old)
    return [path for _, path in staged]


def _undo(done: list[tuple[str, str | None]]) -> bool:
    """Put back the old files of targets already replaced; whether every one was restored."""
    ok = True
    for target, old in reversed(done):
        try:
            if old is None:
                os.unlink(target)  # it was new
            else:
                os.replace(old, target)
        except OSError:
            ok = False
    return ok


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def leftovers(folder: str | os.PathLike[str]) -> list[Path]:
    """Temp files in ``folder`` that a run which no longer runs left behind (it was killed): named
    exactly as :func:`write` names them (``.rs2triton-<pid>-<8 hex digits>-<name>``, or that and
    ``.old``), of a process that is gone. Reported, never removed: rs2triton cannot tell them
    from a file of the user's that happens to be so named."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    out = []
    for name in names:
        m = _TEMP_NAME.fullmatch(name)
        if m and not _alive(int(m.group(1))):
            out.append(Path(folder) / name)
    return sorted(out)


LEFTOVER = "a temp file a killed run left (rs2triton removes only what it made in this run: delete it)"
_TEMP_NAME = re.compile(re.escape(TEMP_PREFIX) + r"(\d+)-[0-9a-f]{8}-.+")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists (another user's)
        return True
    return True


_DIFF_LIMIT = 4 << 20  # bytes of a stale output `check` reads to show its diff


def _read_bounded(path: Path) -> bytes:
    """An output's first :data:`_DIFF_LIMIT` bytes (a huge file is not read whole)."""
    with open(path, "rb") as f:
        return f.read(_DIFF_LIMIT)


def orphans(files: dict[Path, str], outdir: str | os.PathLike[str]) -> list[Path]:
    """Generated modules in ``outdir`` whose Rust source (named in their header) is gone."""
    from rs2triton.transpiler.emit.module import header_source

    root = os.fspath(Path(outdir))  # normalised as the planned paths are (`out/`, `./out` -> `out`)
    if not os.path.isdir(root):
        return []
    planned = {os.fspath(p) for p in files}
    bases = [*header_roots(Path(root)), os.getcwd()]  # where a header's name is relative to (source_name)
    found = []
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if not name.endswith(".py") or path in planned or not os.path.isfile(path):
                continue  # (a FIFO or a device is never opened)
            try:
                with open(path, encoding="utf-8") as f:
                    first = f.readline(4096)
            except (OSError, UnicodeDecodeError):
                continue
            source = header_source(first)  # (the name as it is: a line break or U+202E in it unescaped)
            if source is not None:
                if not any(os.path.exists(os.path.join(b, source)) for b in bases):
                    found.append(Path(path))  # another input's module is not an orphan
    return sorted(found)


def check(files: dict[Path, str], outdir: str | os.PathLike[str] | None = None) -> list[str]:
    """Unified diffs for every output that is missing, differs from the plan, or is orphaned."""
    import difflib

    diffs = []
    if outdir is not None and os.path.isdir(outdir):
        for folder, _dirs, _names in os.walk(os.fspath(outdir)):
            for stray in leftovers(folder):
                diffs.append(f"{shown(stray)}: {LEFTOVER}\n")
    for path in orphans(files, outdir) if outdir is not None else []:
        old = _read_bounded(path).decode("utf-8", "replace").splitlines(keepends=True)
        diffs.append("".join(difflib.unified_diff(old, [], fromfile=shown(path), tofile="/dev/null")))
    for path, text in sorted(files.items()):
        try:
            found = existing(path, text)
        except Foreign as e:
            diffs.append(f"{e} (transpile will not replace it)\n")
            continue
        if found == text.encode("utf-8"):
            continue
        if found is not None and len(found) < os.path.getsize(path):  # (what differs, read in full only if small)
            found = _read_bounded(path)
        current = None if found is None else found.decode("utf-8", "replace")
        old = [] if current is None else current.splitlines(keepends=True)
        diffs.append("".join(difflib.unified_diff(
            old, text.splitlines(keepends=True),
            fromfile=shown(path) if current is not None else "/dev/null",
            tofile=shown(path))) or f"--- /dev/null\n+++ {shown(path)} (empty)\n")
    return diffs
