"""The pipeline of one file: parse -> discover -> lower -> print, then the read-back.

:func:`lower_source` turns a file's bytes into a :class:`Result` (the module text, its kernels,
its warnings and the generated-line -> Rust-line map); :func:`finish` reads the text back
(parses and compiles it, and compares it with the lowered code), so nothing that does not
compile, or is not the code lowered, is ever handed on. Every failure is a :class:`TranspileError`:
a user's mistake where it is, an unexpected exception an internal error (E0999) at the node
being lowered. Many files: :mod:`.workers`; files on disk (plan, write, check): :mod:`.files`.

The stages (tree-sitter, lowering, jinja2) are imported when first needed (or all at once by
:func:`load_stages`, before worker processes are forked), so a run served from the transpile
cache never loads them.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rs2triton.diagnostics import Diagnostic, TranspileError, debug_text, normalize_newlines
from rs2triton.transpiler.frontend.source import SourceMap

if TYPE_CHECKING:
    import ast

    from tree_sitter import Node, Tree

    from rs2triton.transpiler.driver.cache import Cache
    from rs2triton.transpiler.frontend.items import Kernel
    from rs2triton.transpiler.lowering.host.classes import HostSide


class Result:
    """A transpiled file: the module text and the kernels it defines."""

    def __init__(self, source_path: str, text: str | None, kernels: list[Kernel] | None = None,
                 warnings: list[Diagnostic] | None = None, functions: list[ast.FunctionDef] | None = None,
                 line_map: dict[int, int] | None = None, smap: SourceMap | None = None, exact_layout: bool = True):
        self.source_path = source_path
        self.text = text  # None when the file holds no kernels
        self.kernels = kernels if kernels is not None else []
        self.warnings = warnings if warnings is not None else []
        self.functions = functions if functions is not None else []  # the lowered functions
        self.line_map = line_map if line_map is not None else {}  # {generated line: Rust line}
        # The source, to place an internal error found after lowering (None from the cache).
        self.smap = smap
        # Whether every line is laid out as ruff would (see emit/printer.py; for the tests).
        self.exact_layout = exact_layout
        self.host: dict[str, dict[str, Any]] = {}  # per op (launcher or class name): its grid, inputs, params (Rust)
        self.classes: list[ast.ClassDef] = []  # the host side's lowered classes (compared with the printed ones)

    def __repr__(self) -> str:
        return f"Result(source_path={self.source_path!r}, text={self.text!r}, kernels={self.kernels!r})"


def lower_source(source: bytes | str, path: str = "<string>", line_comments: bool = False, *,
                 launchers: bool = True, pyproject: Path | None = None,
                 features: frozenset[str] | None = None, source_name: str | None = None,
                 debug: bool = False) -> Result:
    """Parse, lower and print one file; ``text`` is Python but not yet formatted nor compiled.
    ``line_comments``: end each generated statement's line with ``# path:LINE``.

    Every failure is a :class:`TranspileError`: a user error where it is, and an
    unexpected exception an internal error (E0999) at the node being lowered.

    ``launchers=False`` gives plain Triton (no rs2triton import); ``pyproject`` is where
    ``[tool.rs2triton.tune]`` tables come from; ``source_name`` is the source's name in the
    module's header, where it is not ``path`` (see files.source_name); ``debug``: kernels check
    what Rust's debug build checks (lowering/kernel/debug.py).
    """
    if isinstance(source, str):  # lone surrogates survive, to be reported as invalid UTF-8
        source = source.encode("utf-8", errors="surrogatepass")
    source = normalize_newlines(source)  # (CR LF as LF, as rustc reads a file: the same module either way)
    smap = SourceMap(path, source)
    try:
        return _lower_source(source, smap, line_comments, launchers, pyproject, features, source_name, debug)
    except RecursionError:  # nesting so deep it used up Python's stack outside a kernel's lowering
        raise TranspileError([too_deep(smap)]) from None


def too_deep(smap: SourceMap, root: Node | None = None) -> Diagnostic:
    """E0002 at the most deeply nested node under ``root`` (by default, of the whole file,
    parsed again): source nested so deeply that lowering, printing or compiling it ran out
    of Python stack (a RecursionError).

    There is no fixed depth limit: nesting is refused only where it cannot be handled.
    """
    from rs2triton.transpiler.frontend.parse import deepest, parse

    node, depth = deepest(root if root is not None else parse(smap.source, smap).root_node)
    return smap.diag(node, "E0002", f"unsupported construct: nesting {depth} syntax-tree levels deep",
                     "split the expression with `let` bindings or flatten the blocks")


def _lower_source(source: bytes, smap: SourceMap, line_comments: bool, launchers: bool,
                  pyproject: Path | None, features: frozenset[str] | None = None,
                  source_name: str | None = None, debug: bool = False) -> Result:
    from rs2triton.transpiler.emit.module import module_text
    from rs2triton.transpiler.frontend.items import collect, may_define_kernels
    from rs2triton.transpiler.lowering import ModuleContext, lower_kernel

    path = smap.path
    if not may_define_kernels(source):
        return Result(path, None)
    features = _features(smap.path, features)
    if source_name is not None:
        smap.shown = source_name
    with smap.guard(None, "parsing"):
        source, smap, tree = _parse_expanded(source, smap, features)
        items = collect(tree.root_node, smap, features)
    if not items.kernels:
        return Result(path, None, [], [])
    from rs2triton.transpiler.pyast import python_name

    ctx = ModuleContext(smap, items.functions, items.consts, features=features, debug=debug,
                        kernel_names={python_name(k.name) for k in items.kernels})
    kernel_defs = []
    errors: list[Diagnostic] = []
    seen: dict[str, Kernel] = {}
    for k in items.kernels:
        if k.name in seen:
            errors.append(smap.diag(k.name_node, "E0007",
                                    f"kernel `{k.name}` is defined twice", "rename one of them"))
            continue
        seen[k.name] = k
        try:
            with smap.guard(k.node, "lowering"):
                kernel_defs.append(lower_kernel(ctx, k))
        except TranspileError as e:  # keep going: report every kernel's first error
            errors.extend(e.diagnostics)
        except RecursionError:
            errors.append(too_deep(smap, k.node))
    if errors:
        raise TranspileError(errors)
    if smap.appended is not None:  # kernels a macro wrote: their lines are where they came from
        from rs2triton.transpiler.frontend.macros import relocate_lines

        relocate_lines([*ctx.helpers.values(), *kernel_defs], smap)
    if line_comments:
        from rs2triton.transpiler.emit.module import add_line_comments

        for f in kernel_defs:
            add_line_comments(f, smap.shown)
    functions = list(ctx.helpers.values()) + kernel_defs
    taken = set(ctx.helpers) | set(ctx.used_consts)
    host = None
    if launchers:
        from rs2triton.transpiler.lowering.host.classes import translate
        from rs2triton.transpiler.pyast import launcher_name

        with smap.guard(None, "translating the host logic of"):
            names = taken | {f.name for f in kernel_defs} | {launcher_name(k.name) for k in items.kernels}
            host = translate(items, items.kernels, ctx, features, names)
        if line_comments:
            import ast

            from rs2triton.transpiler.emit.module import add_line_comments

            for op in host.ops:
                for method in op.node.body:
                    if isinstance(method, ast.FunctionDef):
                        add_line_comments(method, smap.shown)
    if ctx.deferred:  # (what rustc's lints reject, now that nothing else is wrong: see ModuleContext)
        raise TranspileError(sorted(ctx.deferred, key=lambda d: (d.line, d.col)))
    with smap.guard(None, "rendering the module for"):
        launcher_defs = _launchers(items.kernels, kernel_defs, taken, smap, pyproject, host, debug,
                                   {f.name: f for f in ctx.helpers.values()}) if launchers else []
        text, line_map, exact = module_text(smap.shown, items.doc, sorted(ctx.imports), list(ctx.used_consts.values()),
                                            functions, ctx.param_comments, launcher_defs, host)
    warnings = [*_read_only_stores(items.kernels, kernel_defs, smap), *(host.warnings if host is not None else [])]
    if host is not None and items.macros:
        from rs2triton.transpiler.frontend.macros import macro_warnings

        warnings = [*macro_warnings(items.impls, items.macros, smap), *warnings]
    result = Result(path, text, items.kernels, warnings, functions, line_map, smap, exact)
    result.host = {o.launcher or o.class_name: o.summary for o in host.ops} if host is not None else {}
    result.classes = [o.node for o in host.ops] if host is not None else []
    return result


def load_stages() -> None:
    """Import every stage that lowering a file needs, and make what is made once a process (the
    parser, the module template): for a process that is about to lower many files, and the
    workers forked from it (:mod:`.workers`)."""
    from rs2triton.transpiler import lowering  # noqa: F401 - (imported for what it loads)
    from rs2triton.transpiler.driver import tuning  # noqa: F401
    from rs2triton.transpiler.emit import facts, launchers, verify  # noqa: F401
    from rs2triton.transpiler.emit.module import template
    from rs2triton.transpiler.frontend import items  # noqa: F401
    from rs2triton.transpiler.frontend.parse import parser
    from rs2triton.transpiler.lowering.host import classes  # noqa: F401

    parser()
    template()


def _features(path: str, features: frozenset[str] | None) -> frozenset[str]:
    """The crate features ``#[cfg(feature = ...)]`` sees (:mod:`rs2triton.rust.cfg`)."""
    from rs2triton.rust.cfg import DEFAULT_FEATURES, crate_features

    if features is not None:
        return features
    p = Path(path)
    return crate_features(str(p.parent.resolve())) if p.is_file() else DEFAULT_FEATURES


def _launchers(kernels: list[Kernel], defs: list[ast.FunctionDef], taken: set[str], smap: SourceMap,
               pyproject: Path | None, host: HostSide | None = None, debug: bool = False,
               helpers: dict[str, ast.FunctionDef] | None = None) -> list[tuple[str, int]]:
    """Each kernel's launcher definition (with any tuning from ``pyproject``'s
    ``[tool.rs2triton.tune]``, and what it uses that the runtime must know of: ``helpers``, the
    module's helper functions by their Python names, are followed) and the Rust line of its kernel."""
    from rs2triton.transpiler.driver.tuning import tables, tuning_for
    from rs2triton.transpiler.emit.facts import kernel_facts
    from rs2triton.transpiler.emit.launchers import check_names, launcher_source

    check_names(kernels, taken, smap)
    where, text, tune = tables(pyproject)
    if where is not None:
        _check_table_names(kernels, where, text, tune)
    out = []
    for k, d in zip(kernels, defs, strict=True):
        tuning = tuning_for(k, where, text, tune[k.name]) if where is not None and k.name in tune else None
        assert k.node is not None
        from rs2triton.transpiler.pyast import launcher_name

        op = host.op_of(launcher_name(k.name)) if host is not None else None
        names = [a.arg for a in d.args.args]
        pointers = {py: p.name.removeprefix("r#") for py, p in zip(names, k.params, strict=False) if p.kind == "pointer"}
        rust = {py: p.name.removeprefix("r#") for py, p in zip(names, k.params, strict=False)}
        consts = {py: (c.name.removeprefix("r#"), c.rust_type) for py, c in zip(names[len(k.params):], k.consts,
                                                                                 strict=False)}
        facts = kernel_facts(d, helpers or {}, pointers, rust, consts)
        out.append((launcher_source(k, d.name, names, tuning, op, debug, facts),
                    smap.rust_line(k.node.start_point[0] + 1)))
    return out




def _check_table_names(kernels: list[Kernel], pyproject: Path, text: str, tune: dict[str, Any]) -> None:
    """A tuning table whose name is no kernel of this file but nearly one of them is a typo
    (E0013 with the name meant); a table for another file's kernel is that file's."""
    import difflib

    from rs2triton.transpiler.driver.tuning import _error

    names = [k.name for k in kernels]
    for table in tune:
        if table in names:
            continue
        close = difflib.get_close_matches(str(table), names, n=1, cutoff=0.8)
        if close:
            raise _error(pyproject, text, str(table), None, f"the tuning table `{table}` names no kernel; "
                         f"did you mean `{close[0]}`?", f"rename the table `[tool.rs2triton.tune.{close[0]}]`")


def finish(results: list[Result]) -> None:
    """Check every module before anything is written: it holds no character that could end a
    line or turn text around except the newlines between its lines, and it is read back as black
    reads back its output: parsed again, compiled (which catches what no parser would, a
    duplicate parameter say), and each function and class compared with the tree the lowering
    built (:mod:`rs2triton.transpiler.emit.verify`), so that nothing of a comment or a string
    can have become code; nor may it define a function or class the lowering did not build.
    """
    import ast

    from rs2triton.transpiler.emit.literals import hidden
    from rs2triton.transpiler.emit.verify import check_module

    bad: list[Diagnostic] = []  # internal errors: generated code that does not compile or read back
    for r in results:
        if r.text is None:
            continue
        try:
            # (a character that could end a line, reverse text or act on a terminal, anywhere but
            # as the "\n" ending a line: the printer writes each as an escape, so one there is a bug)
            char = hidden(r.text, newlines=False)
            if char is not None:
                raise ValueError(f"the module holds U+{ord(char):04X} outside a string escape")
            with collection_paused():  # (a parsed module is tens of thousands of objects, none in a cycle)
                tree = ast.parse(r.text, r.source_path)
                compile(tree, r.source_path, "exec", dont_inherit=True)
                d = check_module(tree, [*r.functions, *r.classes])
                del tree  # (freed now, before the collector runs again: it would walk every node first)
            if d is not None:
                raise ValueError(f"the printed module does not read back as the code lowered ({d})")
        except RecursionError as e:  # nested too deeply for Python's compiler
            bad.append(_too_deep_module(r, e))
        except (SyntaxError, ValueError) as e:  # a bug in rs2triton, never a user error
            bad.append(_too_deep_module(r, e) if "too many nested" in str(e)
                       else _internal_error(r, "generating Python for", e))
    if bad:
        raise TranspileError(bad)


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """The garbage collector off for the block (as ``timeit`` turns it off): lowering a file and
    reading its module back make objects by the hundred thousand, nearly all freed as soon as the
    file is done, and the collections they would set off meanwhile walk every one still alive. (A
    cycle made meanwhile is collected after the block.)"""
    import gc

    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _too_deep_module(r: Result, exc: BaseException) -> Diagnostic:
    """E0002 for a module Python cannot compile because it nests too deeply."""
    if r.smap is None:  # pragma: no cover - only fresh results are compiled
        return _internal_error(r, "generating Python for", exc)
    return too_deep(r.smap)


def _internal_error(r: Result, doing: str, exc: BaseException) -> Diagnostic:
    """An internal error after lowering, at the kernel whose generated line failed (or the file)."""
    smap = r.smap or SourceMap(r.source_path, b"")
    node = None
    bad_line = getattr(exc, "lineno", None) or 0
    for line in (r.text or "").splitlines()[:bad_line]:
        for k in r.kernels:
            if line.startswith(f"def {k.name}("):
                node = k.node
    if node is None and doing.startswith("generating") and r.kernels:
        node = r.kernels[0].node
    return smap.ice(node, doing, exc)


def _read_only_stores(kernels: list[Kernel], defs: list[ast.FunctionDef], smap: SourceMap) -> list[Diagnostic]:
    """W0012 for each pointer a kernel marks `InPtr` (read only) and stores through: the mark is
    what tells torch which buffers an op writes (`register_op`), and it would be wrong."""
    from rs2triton.transpiler.emit.facts import stores_through
    from rs2triton.transpiler.pyast import python_name

    out = []
    by_name = {d.name: d for d in defs}
    for k in kernels:
        marked = [p for p in k.params if p.access == "in"]
        fn = by_name.get(python_name(k.name))
        if not marked or fn is None:
            continue
        stored = stores_through(fn)
        for p, arg in zip(k.params, fn.args.args, strict=False):
            if p.access == "in" and arg.arg in stored and p.node is not None:  # (a lowered kernel's have nodes)
                out.append(smap.diag(p.node, "W0012", f"`{k.name}` stores through `{p.name}`, which it marks `InPtr` "
                                     "(read only)", "mark it `InOutPtr` (or `OutPtr`): the marks tell torch which "
                                     "buffers an op writes", severity="warning"))
    return out


PROFILE_VARIABLE = "RS2TRITON_PROFILE"  # `debug` or `release` (the default): cargo's profiles


def debug_build(debug: bool | None, who: str) -> bool:
    """Whether kernels get Rust's debug-build checks (lowering/kernel/debug.py): ``debug`` where
    given, else whether ``RS2TRITON_PROFILE`` is ``debug``."""
    if debug is not None:
        if not isinstance(debug, bool):
            raise TypeError(f"{who}: `debug` must be True, False or None, got {debug!r}")
        return debug
    profile = os.environ.get(PROFILE_VARIABLE, "release").strip().lower()
    if profile not in ("debug", "release", ""):
        raise ValueError(f"{who}: {PROFILE_VARIABLE}={profile!r} names no profile; it is `debug` or `release`")
    return profile == "debug"


def transpile_source(source: bytes | str, path: str = "<string>", *, launchers: bool = True,
                     pyproject: Path | None = None, features: frozenset[str] | None = None,
                     debug: bool = False) -> Result:
    """``features``: the crate features ``#[cfg(feature = ...)]`` sees (None: those of the crate
    ``path`` is in, else teenygrad's defaults: :mod:`rs2triton.rust.cfg`); ``debug``: Rust's
    debug-build checks in kernels."""
    res = lower_source(source, path, launchers=launchers, pyproject=pyproject, features=features, debug=debug)
    finish([res])
    return res


def _parse_expanded(source: bytes, smap: SourceMap,
                    features: frozenset[str] | None = None) -> tuple[bytes, SourceMap, Tree]:
    """(source, source map, tree) of a file, with teenygrad's `#[tiled_kernel]`s written as the
    `#[kernel]`s they expand to (lines kept; frontend/tiled.py), and the kernels the file's
    `macro_rules!` write appended (frontend/macros.py)."""
    from rs2triton.transpiler.frontend.parse import parse

    tree = parse(source, smap)
    if b"tiled_kernel" in source:
        from rs2triton.transpiler.frontend.tiled import expand

        expanded = expand(source, tree, smap, features)
        if expanded is not None:
            source, smap = expanded, SourceMap(smap.path, expanded, smap.shown)
            tree = parse(source, smap)
    if b"macro_rules" in source:
        from rs2triton.transpiler.frontend.macros import append_macro_kernels

        appended = append_macro_kernels(source, tree, smap, features)
        if appended is not None:
            source, smap, tree = appended
    return source, smap, tree


def find_kernels(source: bytes, path: str, features: frozenset[str] | None = None) -> list[Kernel]:
    """The kernels a file defines (their signatures), without lowering them."""
    from rs2triton.transpiler.frontend.items import collect

    features = _features(path, features)
    source = normalize_newlines(source)
    _, smap, tree = _parse_expanded(source, SourceMap(path, source), features)
    return collect(tree.root_node, smap, features).kernels


def features_of(p: Path, features: Iterable[str] | None = None, default_features: bool = True) -> frozenset[str]:
    """The features a build of ``p``'s crate enables: its default ones (unless
    ``default_features`` is false, cargo's ``--no-default-features``) and ``features``."""
    from rs2triton.rust.cfg import crate_features

    base = crate_features(str(p.resolve().parent)) if default_features else frozenset()
    return base | frozenset(features or ())


def transpile_file_cached(path: str | os.PathLike[str], cache: Cache, *, features: Iterable[str] | None = None,
                          default_features: bool = True, debug: bool = False) -> Result:
    """:func:`transpile_file`, with the text and line map served from ``cache`` when the source is unchanged."""
    p = Path(path)
    data, display = read(p), display_path(p)
    from rs2triton.transpiler.driver.cache import is_module
    from rs2triton.transpiler.driver.tuning import forget_pyprojects

    forget_pyprojects()
    pyproject = pyproject_of(p, True)
    enabled = features_of(p, features, default_features)
    key = cache.key(data, display, options_key(True, pyproject, enabled, debug=debug))
    hit = cache.get(key)
    if hit is not None and is_module(hit[0]) and (hit[0] is None or hit[2] is not None):
        kernels = find_kernels(data, display, enabled) if hit[0] is not None else []
        return Result(display, hit[0], kernels, hit[1], line_map=hit[2])
    res = transpile_source(data, display, pyproject=pyproject, features=enabled, debug=debug)
    cache.put(key, res.text, res.warnings, res.line_map)
    return res


def transpile_file(path: str | os.PathLike[str], display: str | None = None, *, launchers: bool = True,
                   features: Iterable[str] | None = None, default_features: bool = True, debug: bool = False) -> Result:
    """Transpile a file; with launchers, tuning comes from the nearest ``pyproject.toml`` above it.
    ``features`` (with the crate's defaults unless ``default_features`` is false) are what
    ``#[cfg(feature = ...)]`` sees, as cargo's ``--features``/``--no-default-features``."""
    p = Path(path)
    return transpile_source(read(p), display or display_path(p), launchers=launchers,
                            pyproject=pyproject_of(p, launchers), features=features_of(p, features, default_features),
                            debug=debug)


def pyproject_of(p: Path, launchers: bool) -> Path | None:
    from rs2triton.transpiler.driver.tuning import find_pyproject

    return find_pyproject(p) if launchers else None


def options_key(launchers: bool, pyproject: Path | None, features: frozenset[str] | None = None,
                source_name: str | None = None, debug: bool = False) -> str:
    """What besides the source decides a file's text: the launcher switch, its tuning tables,
    the crate features ``#[cfg]`` sees, the name its header gives the source and the profile."""
    from rs2triton.transpiler.driver.tuning import tables

    key: dict[str, object] = {"launchers": launchers, "tune": tables(pyproject)[2],
           "features": sorted(features) if features is not None else None}
    if source_name is not None:
        key["source_name"] = source_name
    if debug:
        key["debug"] = True
    return json.dumps(key, sort_keys=True, default=str)


MAX_SOURCE_BYTES = 64 * 2 ** 20  # a Rust source past this is no kernel file (teenygrad's largest: 0.1 MiB)


def read(p: Path) -> bytes:
    """A source file's bytes; a FIFO, a device or a file past MAX_SOURCE_BYTES is an error (E0010)
    rather than a read that never ends or fills the memory."""
    import stat

    name = debug_text(p.as_posix())  # (in quotes and escaped, where it holds a line break: messages)
    try:
        info = os.stat(p)
        if not stat.S_ISREG(info.st_mode):
            kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device" if stat.S_ISCHR(info.st_mode) or \
                stat.S_ISBLK(info.st_mode) else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file"
            raise TranspileError([Diagnostic("E0010", f"cannot read {name}: it is {kind}", str(p), 1, 1,
                                             hint="rs2triton reads regular .rs files")])
        if info.st_size > MAX_SOURCE_BYTES:
            raise TranspileError([Diagnostic("E0010", f"cannot read {name}: {info.st_size} bytes is more than a kernel "
                                             f"file holds (at most {MAX_SOURCE_BYTES})", str(p), 1, 1)])
        with open(p, "rb") as f:
            data = f.read(MAX_SOURCE_BYTES + 1)
        if len(data) > MAX_SOURCE_BYTES:  # (it grew since)
            raise TranspileError([Diagnostic("E0010", f"cannot read {name}: more than {MAX_SOURCE_BYTES} bytes",
                                             str(p), 1, 1)])
        return data
    except OSError as e:
        raise TranspileError([Diagnostic("E0010", f"cannot read {name}: {e.strerror}", str(p), 1, 1)]) from e


def display_path(p: Path) -> str:
    """The path as the user gave it, with forward slashes (stable across machines)."""
    return p.as_posix()
