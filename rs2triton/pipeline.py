"""The pipeline: parse -> discover -> lower -> render, and the file-level plan.

Nothing is written until every input has transpiled: :func:`plan` computes all
outputs in memory, :func:`write` then writes them atomically. :func:`plan` formats
every module of a run with one ruff call and keeps what it generated in the
transpile cache (:mod:`rs2triton.cache`), so an unchanged input is not lowered again.

The heavy stages (tree-sitter, lowering, jinja2) are imported when first needed: a
run served entirely from the cache never loads them.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .diagnostics import Diagnostic, TranspileError
from .render import HEADER_PREFIX

if TYPE_CHECKING:
    import ast

    from .cache import Cache
    from .discover import Kernel

@dataclass
class Result:
    """A transpiled file: the module text and the kernels it defines."""

    source_path: str
    text: str | None  # None when the file holds no kernels
    kernels: list[Kernel] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    # The lowered functions (statements tagged with their Rust line), for `line_map`.
    functions: list[ast.FunctionDef] = field(default_factory=list, repr=False)
    _line_map: dict[int, int] | None = field(default=None, repr=False)

    @property
    def line_map(self) -> dict[int, int]:
        """{generated line: Rust line}, computed on first use (only run/load need it)."""
        if self._line_map is None:
            from .sourcemap import line_map

            self._line_map = line_map(self.functions, self.text) if self.text is not None else {}
        return self._line_map


def lower_source(source: bytes | str, path: str = "<string>") -> Result:
    """Parse, lower and print one file; ``text`` is valid Python but not yet formatted."""
    from .diagnostics import SourceMap
    from .discover import collect
    from .lower import ModuleContext, lower_kernel
    from .parse import parse
    from .render import render_unformatted, unparse

    if isinstance(source, str):
        source = source.encode("utf-8")
    smap = SourceMap(path, source)
    tree = parse(source, smap)
    items = collect(tree.root_node, smap)
    if not items.kernels:
        return Result(path, None, [], items.warnings)
    ctx = ModuleContext(smap, items.functions, items.consts)
    kernel_defs = []
    errors: list[Diagnostic] = []
    seen: dict[str, Kernel] = {}
    for k in items.kernels:
        if k.name in seen:
            errors.append(smap.diag(k.node.child_by_field_name("name"), "E0007",
                                    f"kernel `{k.name}` is defined twice", "rename one of them"))
            continue
        seen[k.name] = k
        try:
            kernel_defs.append(lower_kernel(ctx, k))
        except TranspileError as e:  # keep going: report every kernel's first error
            errors.extend(e.diagnostics)
    if errors:
        raise TranspileError(errors)
    helpers = [unparse(h) for h in ctx.helpers.values()]
    functions = list(ctx.helpers.values()) + kernel_defs
    consts = [unparse(c) for c in ctx.used_consts.values()]
    text = render_unformatted(path, items.doc, sorted(ctx.imports), consts,
                              helpers + [unparse(f) for f in kernel_defs])
    return Result(path, text, items.kernels, items.warnings, functions)


def finish(results: list[Result]) -> None:
    """Lay out every module with one ruff call; each is compiled while ruff works.

    Compiling catches what no parser would (a duplicate parameter, say) before
    anything is written; formatting changes only the layout.
    """
    from .render import format_batch

    todo = [r for r in results if r.text is not None]

    def compile_all() -> None:
        for r in todo:
            try:
                compile(r.text, r.source_path, "exec", dont_inherit=True)
            except SyntaxError as e:  # pragma: no cover - a bug in rs2triton, never a user error
                raise RuntimeError(f"rs2triton generated invalid Python for {r.source_path}: {e}\n{r.text}") from e

    for r, text in zip(todo, format_batch([r.text for r in todo], while_waiting=compile_all), strict=True):
        r.text = text


def transpile_source(source: bytes | str, path: str = "<string>") -> Result:
    res = lower_source(source, path)
    finish([res])
    return res


def transpile_file(path: str | os.PathLike, display: str | None = None) -> Result:
    p = Path(path)
    return transpile_source(_read(p), display or _display(p))


def _read(p: Path) -> bytes:
    try:
        return p.read_bytes()
    except OSError as e:
        raise TranspileError([Diagnostic("E0010", f"cannot read {p}: {e.strerror}", str(p), 1, 1)]) from e


def _display(p: Path) -> str:
    """The path as the user gave it, with forward slashes (stable across machines)."""
    return p.as_posix()


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


def plan(srcs: list[str], outdir: str | os.PathLike, warnings: list[Diagnostic] | None = None,
         cache: Cache | None = None) -> dict[Path, str]:
    """All output files and their text; raises TranspileError (with every file's errors).

    Warnings (items skipped on purpose) are appended to ``warnings`` when given. With a
    ``cache``, inputs whose generated text is cached are not lowered again, and what is
    generated now is stored.
    """
    out = Path(outdir)
    files: dict[Path, str] = {}
    errors: list[Diagnostic] = []
    packages: set[Path] = set()
    dir_inputs = {Path(s) for s in srcs if Path(s).is_dir()}
    results: list[tuple[Path, Path, Result]] = []
    fresh: list[tuple[str | None, Result]] = []
    for src, rel in discover_sources(srcs):
        try:
            data = _read(src)
            key = cache.key(data, _display(src)) if cache is not None else None
            hit = cache.get(key) if key is not None else None
            if hit is not None:
                res = Result(_display(src), hit[0], [], hit[1])
            else:
                res = lower_source(data, _display(src))
                fresh.append((key, res))
        except TranspileError as e:
            errors.extend(e.diagnostics)
            continue
        results.append((src, rel, res))
    if errors:
        raise TranspileError(errors)
    finish([res for _, res in fresh])
    if cache is not None:
        for key, res in fresh:
            cache.put(key, res.text, res.warnings)
    for src, rel, res in results:
        if warnings is not None:
            warnings.extend(res.warnings)
        if res.text is None:
            continue
        target = out / rel
        if target in files:
            errors.append(Diagnostic("E0010", f"two inputs would both write {target.as_posix()}",
                                     src.as_posix(), 1, 1, hint="transpile them into different output folders"))
            continue
        files[target] = res.text
        if any(src.is_relative_to(d) for d in dir_inputs):
            parent = rel.parent
            while True:
                packages.add(out / parent / "__init__.py")
                if parent == Path("."):
                    break
                parent = parent.parent
    if errors:
        raise TranspileError(errors)
    for init in sorted(packages):
        files.setdefault(init, "")
    return files


def write(files: dict[Path, str]) -> list[Path]:
    """Write every file atomically (temp file + rename); returns the files that changed."""
    changed = []
    for path, text in sorted(files.items()):
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".rs2triton-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
        changed.append(path)
    return changed


def orphans(files: dict[Path, str], outdir: str | os.PathLike) -> list[Path]:
    """Generated modules in ``outdir`` whose Rust source (named in their header) is gone."""
    root = Path(outdir)
    if not root.is_dir():
        return []
    found = []
    for py in sorted(root.rglob("*.py")):
        if py in files:
            continue
        try:
            with py.open(encoding="utf-8") as f:
                first = f.readline()
        except (OSError, UnicodeDecodeError):
            continue
        if first.startswith(HEADER_PREFIX):
            source = first[len(HEADER_PREFIX):].split(". Do not edit")[0]
            if not Path(source).exists():  # another input's module is not an orphan
                found.append(py)
    return found


def check(files: dict[Path, str], outdir: str | os.PathLike | None = None) -> list[str]:
    """Unified diffs for every output that is missing, differs from the plan, or is orphaned."""
    diffs = []
    for path in orphans(files, outdir) if outdir is not None else []:
        old = path.read_text(encoding="utf-8").splitlines(keepends=True)
        diffs.append("".join(difflib.unified_diff(old, [], fromfile=path.as_posix(), tofile="/dev/null")))
    for path, text in sorted(files.items()):
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        old = [] if current is None else current.splitlines(keepends=True)
        diffs.append("".join(difflib.unified_diff(
            old, text.splitlines(keepends=True),
            fromfile=path.as_posix() if current is not None else "/dev/null",
            tofile=path.as_posix())) or f"--- /dev/null\n+++ {path.as_posix()} (empty)\n")
    return diffs
