"""The pipeline: parse -> discover -> lower -> render, and the file-level plan.

Nothing is written until every input has transpiled: :func:`plan` computes all
outputs in memory (laid out by the printer; a module it cannot lay out is formatted by
ruff, see :func:`finish`), :func:`write` then writes them atomically. :func:`plan` keeps
what it generated in the transpile cache (:mod:`rs2triton.transpiler.driver.cache`), so an unchanged input
is not lowered again. Files to lower are shared by processes (:func:`transpile_many`; on
the command line, the lead worker :mod:`rs2triton.transpiler.driver.lead` starts and the ones it forks).

The heavy stages (tree-sitter, lowering, jinja2) are imported when first needed: a
run served entirely from the cache never loads them in its own process.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from rs2triton.diagnostics import Diagnostic, TranspileError
from rs2triton.transpiler.frontend.source import SourceMap

# The standard modules only some commands need (difflib, pickle, tempfile) are imported
# where they are used: `check` and `transpile` start faster without them.

if TYPE_CHECKING:
    import ast
    from collections.abc import Iterable

    from tree_sitter import Node

    from rs2triton.transpiler.driver.cache import Cache
    from rs2triton.transpiler.frontend.items import Kernel

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

    def __repr__(self) -> str:
        return f"Result(source_path={self.source_path!r}, text={self.text!r}, kernels={self.kernels!r})"


def lower_source(source: bytes | str, path: str = "<string>", line_comments: bool = False, *,
                 launchers: bool = True, pyproject: Path | None = None) -> Result:
    """Parse, lower and print one file; ``text`` is Python but not yet formatted nor compiled.
    ``line_comments``: end each generated statement's line with ``# path:LINE``.

    Every failure is a :class:`TranspileError`: a user error where it is, and an
    unexpected exception an internal error (E0999) at the node being lowered.

    ``launchers=False`` gives plain Triton (no rs2triton import); ``pyproject`` is where
    ``[tool.rs2triton.tune]`` tables come from.
    """
    if isinstance(source, str):  # lone surrogates survive, to be reported as invalid UTF-8
        source = source.encode("utf-8", errors="surrogatepass")
    smap = SourceMap(path, source)
    try:
        return _lower_source(source, smap, line_comments, launchers, pyproject)
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
                  pyproject: Path | None) -> Result:
    from rs2triton.transpiler.emit.module import module_text
    from rs2triton.transpiler.frontend.items import collect, may_define_kernels
    from rs2triton.transpiler.frontend.parse import parse
    from rs2triton.transpiler.lowering import ModuleContext, lower_kernel

    path = smap.path
    if not may_define_kernels(source):
        return Result(path, None)
    with smap.guard(None, "parsing"):
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
    if line_comments:
        from rs2triton.transpiler.emit.module import add_line_comments

        for f in kernel_defs:
            add_line_comments(f, path)
    with smap.guard(None, "rendering the module for"):
        functions = list(ctx.helpers.values()) + kernel_defs
        launcher_defs = _launchers(items.kernels, kernel_defs, set(ctx.helpers) | set(ctx.used_consts), smap,
                                   pyproject) if launchers else []
        text, line_map, exact = module_text(path, items.doc, sorted(ctx.imports), list(ctx.used_consts.values()),
                                            functions, ctx.param_comments, launcher_defs)
    return Result(path, text, items.kernels, items.warnings, functions, line_map, smap, exact)


def _launchers(kernels: list[Kernel], defs: list[ast.FunctionDef], taken: set[str], smap,
               pyproject: Path | None) -> list[tuple[str, int]]:
    """Each kernel's launcher definition (with any tuning from ``pyproject``'s
    ``[tool.rs2triton.tune]``) and the Rust line of its kernel."""
    from rs2triton.transpiler.driver.tuning import tables, tuning_for
    from rs2triton.transpiler.emit.launchers import check_names, launcher_source

    check_names(kernels, taken, smap)
    where, text, tune = tables(pyproject)
    return [(launcher_source(k, d.name, [a.arg for a in d.args.args],
                             tuning_for(k, where, text, tune[k.name]) if k.name in tune else None),
             k.node.start_point[0] + 1)
            for k, d in zip(kernels, defs, strict=True)]


def finish(results: list[Result]) -> None:
    """Compile every module: that catches what no parser would (a duplicate parameter, say)
    before anything is written."""
    bad: list[Diagnostic] = []  # internal errors: generated code that does not compile
    for r in results:
        if r.text is None:
            continue
        try:
            compile(r.text, r.source_path, "exec", dont_inherit=True)
        except RecursionError as e:  # nested too deeply for Python's compiler
            bad.append(_too_deep_module(r, e))
        except (SyntaxError, ValueError) as e:  # a bug in rs2triton, never a user error
            bad.append(_too_deep_module(r, e) if "too many nested" in str(e)
                       else _internal_error(r, "generating Python for", e))
    if bad:
        raise TranspileError(bad)


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


def transpile_source(source: bytes | str, path: str = "<string>", *, launchers: bool = True,
                     pyproject: Path | None = None) -> Result:
    res = lower_source(source, path, launchers=launchers, pyproject=pyproject)
    finish([res])
    return res


def find_kernels(source: bytes, path: str) -> list[Kernel]:
    """The kernels a file defines (their signatures), without lowering them."""
    from rs2triton.transpiler.frontend.items import collect
    from rs2triton.transpiler.frontend.parse import parse

    smap = SourceMap(path, source)
    return collect(parse(source, smap).root_node, smap).kernels


def transpile_file_cached(path: str | os.PathLike, cache: Cache) -> Result:
    """:func:`transpile_file`, with the text and line map served from ``cache`` when the source is unchanged."""
    p = Path(path)
    data, display = _read(p), _display(p)
    from rs2triton.transpiler.driver.tuning import forget_pyprojects

    forget_pyprojects()
    pyproject = _pyproject(p, True)
    key = cache.key(data, display, _options(True, pyproject))
    hit = cache.get(key)
    if hit is not None and (hit[0] is None or hit[2] is not None):
        kernels = find_kernels(data, display) if hit[0] is not None else []
        return Result(display, hit[0], kernels, hit[1], line_map=hit[2])
    res = transpile_source(data, display, pyproject=pyproject)
    cache.put(key, res.text, res.warnings, res.line_map)
    return res


def transpile_file(path: str | os.PathLike, display: str | None = None, *, launchers: bool = True) -> Result:
    """Transpile a file; with launchers, tuning comes from the nearest ``pyproject.toml`` above it."""
    p = Path(path)
    return transpile_source(_read(p), display or _display(p), launchers=launchers,
                            pyproject=_pyproject(p, launchers))


def _pyproject(p: Path, launchers: bool) -> Path | None:
    from rs2triton.transpiler.driver.tuning import find_pyproject

    return find_pyproject(p) if launchers else None


def _options(launchers: bool, pyproject: Path | None) -> str:
    """What besides the source decides a file's text: the launcher switch and its tuning tables."""
    from rs2triton.transpiler.driver.tuning import tables

    tune = tables(pyproject)[2]
    if not tune:  # the usual case, written as json.dumps writes it, without loading json
        return f'{{"launchers": {"true" if launchers else "false"}, "tune": {{}}}}'
    import json

    return json.dumps({"launchers": launchers, "tune": tune}, sort_keys=True, default=str)


def _read(p: Path) -> bytes:
    try:
        return p.read_bytes()
    except OSError as e:
        raise TranspileError([Diagnostic("E0010", f"cannot read {p}: {e.strerror}", str(p), 1, 1)]) from e


def _display(p: Path) -> str:
    """The path as the user gave it, with forward slashes (stable across machines)."""
    return p.as_posix()


def transpile_many(sources: list[tuple[bytes, str, dict]], jobs: int = 1,
                   line_comments: bool = False) -> list[Result | TranspileError]:
    """Transpile each (source, display path, lower_source options): a finished :class:`Result` or the
    file's errors.

    With ``jobs`` > 1 and enough files, this process and ``jobs - 1`` forked ones (where
    ``os.fork`` exists) share the files: each takes the next one from a common queue (the
    biggest first) until none is left, then compiles (and, if the printer could not lay
    one out, formats) what it lowered. When the command line started a lead worker
    (:mod:`rs2triton.transpiler.driver.lead`), the files go to it instead and it does all of this. The results
    are the same as with ``jobs=1``, except that results from other processes carry no
    ``kernels`` or ``functions``.
    """
    from rs2triton.transpiler.driver import lead

    if lead.started():
        if sources and jobs > 1:
            return _on_lead(lead.take(), sources, jobs, line_comments)
        lead.stop()
    jobs = min(jobs, len(sources) // _MIN_FILES_PER_JOB)
    if jobs <= 1 or not hasattr(os, "fork"):
        return _transpile_share(sources, line_comments)
    _load_stages()  # once, here: the forked processes share them (fewer CPU seconds, same wall time)
    queue, queue_in = os.pipe()
    order = b"".join(i.to_bytes(_INDEX, "little") for i in
                     sorted(range(len(sources)), key=lambda i: -_work(sources[i][0])))
    if len(order) <= _PIPE_HOLDS:  # the usual case: the whole queue is in the pipe before anyone starts
        os.write(queue_in, order)
        os.close(queue_in)
        order = b""
    children = []
    for _ in range(jobs - 1):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: transpile what it takes, send it back, and never return
            _child(read_end, write_end, queue_in if order else None, sources, queue, line_comments)
        os.close(write_end)
        children.append((pid, read_end))
    if order:  # more than a pipe holds: written by a thread while every process (this one too) takes from it
        import threading

        def fill() -> None:
            with os.fdopen(queue_in, "wb") as f:
                f.write(order)

        threading.Thread(target=fill, daemon=True).start()
    outcomes: list = [None] * len(sources)
    for i, r in _transpile_queue(sources, queue, line_comments):
        outcomes[i] = r
    os.close(queue)
    import pickle

    crash = None
    for pid, read_end in children:
        with os.fdopen(read_end, "rb") as f:
            data = f.read()
        os.waitpid(pid, 0)
        status, payload = pickle.loads(data) if data else ("crash", "a worker process died")
        if status != "ok":
            crash = payload
            continue
        for i, item in payload:
            outcomes[i] = (Result(sources[i][1], item[0], [], item[1]) if isinstance(item, tuple)
                           else TranspileError(item))
    if crash is not None or any(o is None for o in outcomes):  # pragma: no cover - a bug in rs2triton
        raise RuntimeError(f"rs2triton failed in a worker process:\n{crash or 'a file was not transpiled'}")
    return outcomes


_MIN_FILES_PER_JOB = 8  # below this, starting a process costs more than it saves
_INDEX = 4  # bytes per file index in the queue: a pipe read this small is atomic, so no two processes get one
_PIPE_HOLDS = 4096  # bytes any pipe holds without a reader (POSIX's PIPE_BUF minimum; Linux holds 64 KiB)


def _work(source: bytes) -> int:
    """About how much lowering ``source`` takes, in units of a byte of kernel body: the text
    from each `#[kernel` to the next line that starts with `}`, a thirteenth of the file
    (parsing) and 700 for the file itself (fitted to the time per file on kernels_rs, a
    sample of teenygrad's kernels and the stress corpus). 0 for a file without kernels,
    which is not even parsed (an estimate: a file that never says `kernel` cannot hold
    one; discover.may_define_kernels decides exactly, for a little more time in this
    serial step). Files are queued by it, the biggest first, so that the processes
    finish together."""
    if b"kernel" not in source:
        return 0
    body, i = 0, source.find(b"#[kernel")
    while i >= 0:
        end = source.find(b"\n}", i)
        end = len(source) if end < 0 else end
        body += end - i
        i = source.find(b"#[kernel", end)
    return body + len(source) // 13 + 700


def _taken(queue: int):
    """The indices this process takes from the queue, one at a time, until it is empty."""
    while len(raw := os.read(queue, _INDEX)) == _INDEX:
        yield int.from_bytes(raw, "little")


def _transpile_queue(sources: list[tuple[bytes, str, dict]], queue: int,
                     line_comments: bool) -> list[tuple[int, Result | TranspileError]]:
    """(index, outcome) for every file this process took from ``queue``."""
    taken: list[int] = []

    def take():
        for i in _taken(queue):
            taken.append(i)
            yield sources[i]

    outcomes = _transpile_share(take(), line_comments)
    return list(zip(taken, outcomes, strict=True))


def _child(read_end: int, write_end: int, queue_in: int | None, sources: list[tuple[bytes, str, dict]],
           queue: int, line_comments: bool) -> None:
    """A forked worker: whatever happens (an error, a closed pipe, Ctrl-C), it exits here."""
    status = 1
    try:
        os.close(read_end)
        if queue_in is not None:
            os.close(queue_in)  # the parent's to fill and close: the queue ends when it does
        import pickle

        try:
            done = _transpile_queue(sources, queue, line_comments)
            payload = ("ok", [(i, (r.text, r.warnings) if isinstance(r, Result) else r.diagnostics)
                              for i, r in done])
        except Exception:  # reported by the parent
            import traceback

            payload = ("crash", traceback.format_exc())
        with os.fdopen(write_end, "wb") as f:
            pickle.dump(payload, f)
        status = 0
    finally:
        os._exit(status)


def _load_stages() -> None:
    """Import the lowering stages and build the parser and the template environment
    (before forking: every worker inherits them)."""
    import rs2triton.transpiler.lowering  # noqa: F401
    from rs2triton.transpiler.driver import tuning  # noqa: F401 - imported for their side effect
    from rs2triton.transpiler.emit.module import template
    from rs2triton.transpiler.frontend.parse import _parser

    _parser()
    template()


def _transpile_share(sources: Iterable[tuple[bytes, str, dict]],
                     line_comments: bool = False) -> list[Result | TranspileError]:
    out: list[Result | TranspileError] = []
    for data, display, options in sources:
        try:
            out.append(lower_source(data, display, line_comments, **options))
        except TranspileError as e:
            out.append(e)
    if not any(isinstance(r, TranspileError) for r in out):  # with errors, nothing will be written
        try:
            finish([r for r in out if isinstance(r, Result)])
        except TranspileError as e:  # internal errors: each file gets its own
            paths = {d.path for d in e.diagnostics}
            if not paths & {r.source_path for r in out}:
                raise
            out = [TranspileError([d for d in e.diagnostics if d.path == r.source_path])
                   if r.source_path in paths else r for r in out]
    return out


def lead_main(work_r: int, results_w: int) -> None:
    """The lead worker (see :mod:`rs2triton.transpiler.driver.lead`), once forked: load the stages, then
    lower what it is sent. Whatever happens (an error, a closed pipe, Ctrl-C), it exits here."""
    status = 1
    try:
        import gc

        gc.disable()  # as in the command-line process (see cli._plan)
        _load_stages()
        import marshal

        with os.fdopen(work_r, "rb") as f:
            data = f.read()
        if data:
            try:
                wire, jobs, line_comments = marshal.loads(data)
                sources = [(source, display, {"launchers": launchers, "pyproject": pyproject and Path(pyproject)})
                           for source, display, launchers, pyproject in wire]
                done = transpile_many(sources, jobs, line_comments)
                payload = ("ok", [(r.text, [w._key() for w in r.warnings]) if isinstance(r, Result)
                                  else [d._key() for d in r.diagnostics] for r in done])
            except Exception:  # reported by the parent
                import traceback

                payload = ("crash", traceback.format_exc())
            with os.fdopen(results_w, "wb") as f:
                f.write(marshal.dumps(payload))
        status = 0
    finally:
        os._exit(status)


def _on_lead(lead: tuple[int, int, int], sources: list[tuple[bytes, str, dict]], jobs: int,
             line_comments: bool) -> list[Result | TranspileError]:
    """:func:`transpile_many`'s outcomes, from the lead worker ``lead`` (pid, work pipe, results pipe).

    Both ways the data goes as ``marshal`` data (plain values, diagnostics as their fields):
    quicker to write and read than pickle, and nothing to import."""
    import marshal

    pid, work_w, results_r = lead
    wire = []
    for source, display, options in sources:
        pyproject = options.get("pyproject")
        if set(options) - {"launchers", "pyproject"}:  # pragma: no cover - a new option must be sent too
            raise RuntimeError(f"the lead worker is not told about {sorted(options)}")
        wire.append((source, display, options.get("launchers", True), pyproject and os.fspath(pyproject)))
    try:
        with os.fdopen(work_w, "wb") as f:
            f.write(marshal.dumps((wire, jobs, line_comments)))
    except BrokenPipeError:  # the lead died before reading: reported below
        pass
    with os.fdopen(results_r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    status, payload = marshal.loads(data) if data else ("crash", "the lead worker process died")
    if status != "ok":
        raise RuntimeError(f"rs2triton failed in a worker process:\n{payload}")
    return [Result(source[1], item[0], [], [Diagnostic(*w) for w in item[1]]) if isinstance(item, tuple)
            else TranspileError([Diagnostic(*d) for d in item])
            for source, item in zip(sources, payload, strict=True)]


def default_jobs() -> int:
    """Processes for a command-line run: one per available core (at most 8), 1 if threads are running."""
    import threading

    if threading.active_count() > 1:  # forking a threaded process is unsafe
        return 1
    from rs2triton.transpiler.driver.lead import cores

    return max(1, min(cores(), 8))


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
         cache: Cache | None = None, jobs: int = 1, line_comments: bool = False, *,
         launchers: bool = True) -> dict[Path, str]:
    """All output files and their text; raises TranspileError (with every file's errors).

    Warnings (items skipped on purpose) are appended to ``warnings`` when given. With a
    ``cache``, inputs whose generated text is cached are not lowered again, and what is
    generated now is stored. ``jobs`` > 1 lowers files in that many processes.
    ``line_comments``: every generated statement ends with ``# file.rs:LINE`` (not cached).
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
    # One entry per input, in input order: (src, rel, Result or TranspileError or None until lowered)
    entries: list[list] = []
    todo: list[tuple[int, bytes, str, str | None, dict]] = []
    for src, rel in discover_sources(srcs):
        display = _display(src)
        try:
            data = _read(src)
            pyproject = _pyproject(src, launchers)
            key = cache.key(data, display, _options(launchers, pyproject)) if cache is not None else None
        except TranspileError as e:
            entries.append([src, rel, e])
            continue
        entries.append([src, rel, None])
        todo.append((len(entries) - 1, data, display, key, {"launchers": launchers, "pyproject": pyproject}))
    hits = cache.get_many([key for *_, key, _ in todo]) if cache is not None else {}
    for i, _, display, key, _ in todo:
        if key in hits:
            entries[i][2] = Result(display, hits[key][0], [], hits[key][1])
    todo = [item for item in todo if item[3] not in hits]
    many = transpile_many([(d, disp, opts) for _, d, disp, _, opts in todo], jobs, line_comments)
    for (i, *_), outcome in zip(todo, many, strict=True):
        entries[i][2] = outcome
    for _, _, outcome in entries:
        if isinstance(outcome, TranspileError):
            errors.extend(outcome.diagnostics)
    if errors:  # (only now is every fresh result finished, and so fit to cache)
        raise TranspileError(errors)
    if cache is not None:
        cache.put_many([(key, entries[i][2].text, entries[i][2].warnings, None) for i, _, _, key, _ in todo])
    for src, rel, res in entries:
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
                init = out / parent / "__init__.py"
                if init in packages:  # and so are the folders above it
                    break
                packages.add(init)
                if parent == Path("."):
                    break
                parent = parent.parent
    if errors:
        raise TranspileError(errors)
    for init in sorted(packages):
        files.setdefault(init, "")
    return files


def write(files: dict[Path, str]) -> list[Path]:
    """Write every file atomically; returns the files that changed.

    Every new text goes to a temp file beside its target first; only when all of
    them are written are they renamed into place, so a full disk or a read-only
    folder leaves nothing half-written (E0010).
    """
    staged: list[tuple[str, Path]] = []
    made: set[str] = set()  # folders known to exist
    tag = f".rs2triton-{os.getpid()}-{os.urandom(4).hex()}-"
    try:
        for path, text in sorted(files.items()):
            target, data = os.fspath(path), text.encode("utf-8")
            try:
                with open(target, "rb") as f:
                    if f.read() == data:
                        continue  # unchanged: not even touched
            except OSError:  # not there yet (or not a file: replacing it fails below, with the reason)
                pass
            folder = os.path.dirname(target) or "."
            if folder not in made:
                os.makedirs(folder, exist_ok=True)
                made.add(folder)
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
            os.replace(tmp, path)
    except OSError as e:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        where = e.filename or (staged[-1][1] if staged else "the output folder")
        raise TranspileError([Diagnostic("E0010", f"cannot write {where}: {e.strerror or e}", str(where), 1, 1,
                                         hint="check that the output folder is writable and not a file")]) from e
    return [path for _, path in staged]


def orphans(files: dict[Path, str], outdir: str | os.PathLike) -> list[Path]:
    """Generated modules in ``outdir`` whose Rust source (named in their header) is gone."""
    from rs2triton.transpiler.emit.module import HEADER_PREFIX

    root = os.fspath(Path(outdir))  # normalised as the planned paths are (`out/`, `./out` -> `out`)
    if not os.path.isdir(root):
        return []
    planned = {os.fspath(p) for p in files}
    found = []
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if not name.endswith(".py") or path in planned:
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    first = f.readline()
            except (OSError, UnicodeDecodeError):
                continue
            if first.startswith(HEADER_PREFIX):
                source = first[len(HEADER_PREFIX):].split(". Do not edit")[0]
                if not os.path.exists(source):  # another input's module is not an orphan
                    found.append(Path(path))
    return sorted(found)


def check(files: dict[Path, str], outdir: str | os.PathLike | None = None) -> list[str]:
    """Unified diffs for every output that is missing, differs from the plan, or is orphaned."""
    import difflib

    diffs = []
    for path in orphans(files, outdir) if outdir is not None else []:
        old = path.read_text(encoding="utf-8").splitlines(keepends=True)
        diffs.append("".join(difflib.unified_diff(old, [], fromfile=path.as_posix(), tofile="/dev/null")))
    for path, text in sorted(files.items()):
        try:
            with open(path, encoding="utf-8") as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current == text:
            continue
        old = [] if current is None else current.splitlines(keepends=True)
        diffs.append("".join(difflib.unified_diff(
            old, text.splitlines(keepends=True),
            fromfile=path.as_posix() if current is not None else "/dev/null",
            tofile=path.as_posix())) or f"--- /dev/null\n+++ {path.as_posix()} (empty)\n")
    return diffs
