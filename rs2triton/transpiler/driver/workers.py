"""Lowering many files in several processes: this one and the standard library's process pool.

:func:`transpile_many` starts a ``concurrent.futures.ProcessPoolExecutor`` of ``jobs - 1``
workers, hands each the whole list of files (the biggest first), and lowers files itself
meanwhile: every process takes the next file no process has taken yet, by a count they share
(a ``multiprocessing.Value``), until none is left. So the processes finish together, none waits
for another to hand it work (as a pool's queue would make a worker wait for this process's
threads), and the files come back in input order. A worker's exception reaches the caller with
its traceback as the cause; a worker that dies is a ``BrokenProcessPool``.

This process imports the lowering stages before the pool starts (it needs them itself), and the
workers are forked from it when it runs no other thread, as the command line's does: they start
with the stages loaded. A caller with threads, which forking would not be safe for, gets them
from multiprocessing's *forkserver* instead: a clean server process that imports the stages once
(:mod:`.preload`) and forks each worker from itself. A pool is made only when there is something
to lower: a run served from the cache starts no process.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, TypedDict

from rs2triton.diagnostics import Diagnostic, TranspileError

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext
    from multiprocessing.sharedctypes import Synchronized
    from pathlib import Path

    from rs2triton.transpiler.driver.pipeline import Result

PRELOAD = ["rs2triton.transpiler.driver.preload"]  # what the forkserver imports before it forks workers
MIN_FILES_PER_JOB = 4  # below this a worker costs more than it saves


class LowerOptions(TypedDict):
    """The keyword arguments :func:`~rs2triton.transpiler.driver.pipeline.lower_source` is given for a file."""

    launchers: bool
    pyproject: Path | None
    features: frozenset[str] | None
    source_name: str | None
    debug: bool


Source = tuple[bytes, str, LowerOptions]  # (source bytes, display path, lower_source options)
Outcome = tuple[str | None, list[Diagnostic], dict[int, int]] | list[Diagnostic]


def context() -> BaseContext:
    """Fork, where it is safe (no other thread runs); else the forkserver, whose server preloads the
    stages; spawn where neither exists."""
    import multiprocessing  # (here: a run served from the cache never needs it)
    import threading

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def default_jobs() -> int:
    """Processes for a command-line run: one per available core, at most 8."""
    return max(1, min(cores(), 8))


def transpile_many(sources: list[Source], jobs: int = 1, line_comments: bool = False) -> list[Result | TranspileError]:
    """Lower and compile each (source, display path, options): a :class:`Result` or the file's errors.

    With ``jobs`` > 1 and enough files, the files are lowered by that many processes, this one and
    ``jobs - 1`` workers (at most one process per :data:`MIN_FILES_PER_JOB` files). The results are
    the same either way, except that results carry no ``kernels`` or ``functions`` (the tree-sitter
    nodes stay where they were made).
    """
    jobs = min(jobs, max(1, len(sources) // MIN_FILES_PER_JOB))
    if jobs <= 1:
        return [_result(s, lower_one(s, line_comments)) for s in sources] if sources else []
    order = sorted(range(len(sources)), key=lambda i: -_work(sources[i][0]))  # the biggest first
    ordered = [sources[i] for i in order]
    outcomes: list[Outcome | None] = [None] * len(sources)
    from concurrent.futures import ProcessPoolExecutor

    from rs2triton.transpiler.driver.pipeline import load_stages

    load_stages()  # (before the workers are forked: they start with them)
    mp_context = context()
    parent = os.getpid() if mp_context.get_start_method() == "fork" else None
    taken = mp_context.Value("q", 0)  # how many of ``ordered`` some process has taken
    executor = ProcessPoolExecutor(max_workers=jobs - 1, mp_context=mp_context, initializer=_start_worker,
                                   initargs=(parent, taken))
    try:
        shares = [executor.submit(_lower_share, ordered, line_comments) for _ in range(jobs - 1)]
        done = _take(taken, ordered, line_comments)
        for share in shares:
            done.update(share.result())
    except BaseException:
        with taken.get_lock():  # (no process starts another file)
            taken.value = len(ordered)
        executor.shutdown(wait=True, cancel_futures=True)
        raise
    executor.shutdown(wait=True)
    for at, outcome in done.items():
        outcomes[order[at]] = outcome
    return [_result(s, o) for s, o in zip(sources, outcomes, strict=True) if o is not None]


def _take(taken: Synchronized[int], ordered: list[Source], line_comments: bool) -> dict[int, Outcome]:
    """Lower the next file no process has taken, until none is left: {its place in ``ordered``: its
    outcome}. Every process does this at once, this one and the workers, so they finish together
    (the biggest files come first) with no process handing out the files."""
    done: dict[int, Outcome] = {}
    while True:
        with taken.get_lock():
            at = taken.value
            taken.value = at + 1
        if at >= len(ordered):
            return done
        done[at] = lower_one(ordered[at], line_comments)


_TAKEN: Synchronized[int] | None = None  # in a worker: the shared count of files taken (see _start_worker)


def _start_worker(parent: int | None, taken: Synchronized[int]) -> None:
    global _TAKEN
    _TAKEN = taken
    _watch_parent(parent)


def _lower_share(ordered: list[Source], line_comments: bool) -> dict[int, Outcome]:
    """In a worker: its share of the files (see :func:`_take`)."""
    if _TAKEN is None:
        raise RuntimeError("_lower_share runs in a worker started by _start_worker")
    return _take(_TAKEN, ordered, line_comments)


def _watch_parent(parent: int | None) -> None:
    """In a worker: exit as soon as the process that started the pool is gone (killed, say), so
    that no worker outlives its command. (Blocked on the pool's queue, a worker would not notice:
    its siblings hold the queue open.) A dead parent may linger as a zombie, so what is watched is
    this worker's own parent process: ``parent``, the command that forked it (gone already if the
    worker's parent is another by now), or for a worker from the forkserver, the server (which ends
    with the command); when it dies the worker is handed to another."""
    import threading
    import time

    born = os.getppid() if parent is None else parent

    def watch() -> None:
        while os.getppid() == born:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="rs2triton-watch-parent", daemon=True).start()


def lower_one(source: Source, line_comments: bool) -> Outcome:
    """One file lowered and compiled (in a worker, or here): its text, warnings and line map,
    or its diagnostics."""
    from rs2triton.transpiler.driver.pipeline import collection_paused, finish, lower_source

    data, display, options = source
    try:
        with collection_paused():
            result = lower_source(data, display, line_comments, **options)
            finish([result])
            return result.text, result.warnings, result.line_map
    except TranspileError as e:
        return e.diagnostics


def _result(source: Source, outcome: Outcome) -> Result | TranspileError:
    from rs2triton.transpiler.driver.pipeline import Result

    if isinstance(outcome, list):
        return TranspileError(outcome)
    text, warnings, line_map = outcome
    return Result(source[1], text, [], warnings, line_map=line_map)


def _work(source: bytes) -> int:
    """About how much lowering ``source`` takes, in bytes of kernel body: the text from each
    `#[kernel` to the next line that starts with `}`, plus a thirteenth of the file (parsing).
    Files are queued by it, the biggest first, so that the workers finish together."""
    if b"kernel" not in source:
        return 0
    body, i = 0, source.find(b"#[kernel")
    while i >= 0:
        end = source.find(b"\n}", i)
        end = len(source) if end < 0 else end
        body += end - i
        i = source.find(b"#[kernel", end)
    return body + len(source) // 13 + 700
