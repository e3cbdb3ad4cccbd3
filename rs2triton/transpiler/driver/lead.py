"""The lead worker of a command-line ``transpile`` or ``check``: a process forked at the
very start of the run, before the command line is parsed.

It loads the lowering stages (tree-sitter, the lowering, jinja2: ``pipeline.lead_main``)
on another core while this process loads the command line and plans the run (finds,
reads and hashes the inputs, looks them up in the cache). ``pipeline.transpile_many``
then sends it the files to lower, and it shares them with the workers it forks from
itself, which inherit the loaded stages; this process never loads them. A lead that gets
no work (everything was cached, or the command failed first) ends as soon as this process
closes its work pipe (:func:`stop`) or exits.

This module imports nothing of rs2triton, so that the fork happens as early as it can:
the less this process holds then, the less either process copies afterwards.
"""

from __future__ import annotations

import os

_LEAD: tuple[int, int, int] | None = None  # (pid, work pipe, results pipe) while started and unused


def start_for(argv: list[str]) -> None:
    """Start the lead when the command line ``argv`` (without the program name) is a
    ``transpile`` or ``check`` that may lower files in several processes."""
    if (len(argv) < 2 or argv[0] not in ("transpile", "check") or not hasattr(os, "fork")
            or "-h" in argv or "--help" in argv or _jobs_asked(argv) == 1 or cores() < 2):
        return
    start()


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _jobs_asked(argv: list[str]) -> int | None:
    """The value of ``-j``/``--jobs`` in ``argv`` if it is a number (a guess: click decides)."""
    for i, a in enumerate(argv):
        value = None
        if a in ("-j", "--jobs") and i + 1 < len(argv):
            value = argv[i + 1]
        elif a.startswith("--jobs="):
            value = a[len("--jobs="):]
        elif a.startswith("-j") and a[2:].isdigit():
            value = a[2:]
        if value is not None and value.isdigit():
            return int(value)
    return None


def start() -> None:
    """Fork the lead now (see the module's docstring)."""
    global _LEAD
    try:
        work_r, work_w = os.pipe()
        results_r, results_w = os.pipe()
    except OSError:  # out of file descriptors: the run goes on without a lead
        return
    try:
        pid = os.fork()
    except OSError:  # no fork allowed here (process limits, a sandbox): likewise
        for fd in (work_r, work_w, results_r, results_w):
            os.close(fd)
        return
    if pid == 0:
        try:
            os.close(work_w)
            os.close(results_r)
            quiet = os.open(os.devnull, os.O_RDWR)  # the terminal and the caller's pipes are not its to hold
            for fd in (0, 1, 2):
                os.dup2(quiet, fd)
            from rs2triton.transpiler.driver.pipeline import lead_main

            lead_main(work_r, results_w)  # never returns
        finally:
            os._exit(1)
    os.close(work_r)
    os.close(results_w)
    _LEAD = (pid, work_w, results_r)


def started() -> bool:
    return _LEAD is not None


def take() -> tuple[int, int, int]:
    """The lead's (pid, work pipe, results pipe), for the one run that uses it."""
    global _LEAD
    lead, _LEAD = _LEAD, None
    if lead is None:
        raise RuntimeError("no lead worker was started")
    return lead


def stop() -> None:
    """Let an unused lead go: it ends when it finds its work pipe closed."""
    global _LEAD
    if _LEAD is not None:
        _pid, work_w, results_r = _LEAD
        _LEAD = None
        os.close(work_w)
        os.close(results_r)
