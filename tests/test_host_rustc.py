"""Translated host code against rustc: every answer exactly rustc's, every rejection rustc's.

The cases are the associated functions of ``impl Probe`` in tests/kernels/host_oracle.rs;
tests/data/host_oracle.json holds, for each, the calls to make and what the same Rust function
gives when rustc compiles it in the release profile (``-O -C overflow-checks=off
-C debug-assertions=off``). Both files are written by tests/oracle/gen_host_cases.py, which runs
rustc; see tests/oracle/README.md.

What the translation must do, as this test reads it:

- ``rs2triton.load(probe).Probe.<case>(*args)`` calls a case (an associated function without
  ``self`` is a classmethod); arguments are Python ints, floats, bools and lists (slices, Vecs);
- a result is rustc's exactly: ints equal (and ``int``, not ``bool``), floats bit for bit in their
  type (an f32 result is the f32 value; any NaN matches any NaN; ``-0.0`` is not ``0.0``), an
  ``Option`` is ``None`` or its value, a tuple, array or ``Vec`` a tuple or list of its elements;
- a Rust panic raises ``rs2triton.runtime.host.Panic`` (a ``RuntimeError``) whose message holds
  Rust's and names ``host_oracle.rs:LINE``, a line of the case's function;
- a program rustc rejects is a ``TranspileError`` located where rustc's first error is, naming
  rustc's error code or lint; never accepted, never an internal error (E0999).
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import signal
import struct

import pytest

import rs2triton
from tests.conftest import ROOT

PROBE = ROOT / "tests" / "kernels" / "host_oracle.rs"
FIXTURE = json.loads((ROOT / "tests" / "data" / "host_oracle.json").read_text(encoding="utf-8"))
# What the translation does not do yet, each a strict xfail (it fails the suite once it passes):
# named, so that the gaps are a list to read, not a count.
GAPS: dict[str, str] = {}  # case or program name -> why rs2triton does not yet give rustc's answer (a strict xfail)
CASES = [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=GAPS[c["name"]])) if c["name"] in GAPS else c
         for c in FIXTURE["cases"]]
REJECTED = [pytest.param(r, marks=pytest.mark.xfail(strict=True, reason=GAPS[r["name"]])) if r["name"] in GAPS else r
            for r in FIXTURE["rejected"]]
INTS = {"i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize"}


def _panic_class():
    """rs2triton.runtime.host.Panic, which the rewrite adds (None while it is missing: imported
    here, so that this module loads today)."""
    try:
        from rs2triton.runtime.host import Panic
    except ImportError:
        return None
    return Panic


# ------------------------------------------------------------------ values


def _float(enc: dict) -> tuple[str, float]:
    [(ty, hexbits)] = enc.items()
    bits = int(hexbits, 16)
    value = struct.unpack("<f", struct.pack("<I", bits))[0] if ty == "f32" else struct.unpack("<d", struct.pack("<Q", bits))[0]
    return ty, value


def decode(enc):
    """An argument as the translated function takes it."""
    if isinstance(enc, dict):
        return _float(enc)[1]
    if isinstance(enc, list):
        return [decode(x) for x in enc]
    return enc


def show(enc) -> str:
    """rustc's answer, readably."""
    if isinstance(enc, dict):
        ty, v = _float(enc)
        return f"{v!r}_{ty}"
    if isinstance(enc, list):
        return "[" + ", ".join(show(x) for x in enc) + "]"
    return "None" if enc is None else repr(enc)


def mismatch(want, got, where: str = "") -> str | None:
    """Why `got` is not rustc's `want` (None when it is)."""
    if isinstance(want, dict):
        ty, w = _float(want)
        if isinstance(got, (bool, int)) or not hasattr(got, "__float__"):
            return f"{where}: {got!r} ({type(got).__name__}) is not an {ty}"
        g = float(got)
        if math.isnan(w):
            return None if math.isnan(g) else f"{where}: {g!r}, want NaN"
        if ty == "f32" and not math.isnan(g) and not math.isinf(g):
            try:
                as_f32 = struct.unpack("<f", struct.pack("<f", g))[0]
            except OverflowError:
                as_f32 = None
            if as_f32 != g:
                return f"{where}: {g!r} is not an f32 value, want {w!r}_f32"
        if struct.pack("<d", g) != struct.pack("<d", w):
            return f"{where}: {g!r}, want {w!r}_{ty}"
        return None
    if isinstance(want, list):
        if not isinstance(got, (list, tuple)):
            return f"{where}: {got!r} ({type(got).__name__}), want the sequence {show(want)}"
        if len(got) != len(want):
            return f"{where}: {got!r} has {len(got)} elements, want {show(want)}"
        for i, (w, g) in enumerate(zip(want, got, strict=True)):
            why = mismatch(w, g, f"{where}[{i}]")
            if why:
                return why
        return None
    if want is None:
        return None if got is None else f"{where}: {got!r}, want None"
    if isinstance(want, bool):
        return None if isinstance(got, bool) and got == want else f"{where}: {got!r}, want {want!r}"
    if isinstance(want, int):
        if isinstance(got, bool) or not isinstance(got, int):
            return f"{where}: {got!r} ({type(got).__name__}), want the int {want!r}"
        return None if got == want else f"{where}: {got!r}, want {want!r}"
    if isinstance(want, str):
        return None if got == want else f"{where}: {got!r}, want {want!r}"
    raise AssertionError(f"unknown fixture value {want!r}")


# ------------------------------------------------------------------ the cases

CALL_TIMEOUT_S = 3.0  # a call that takes longer is a hang (rustc's take microseconds)


@pytest.fixture(scope="module")
def probe():
    try:
        return rs2triton.load(PROBE)
    except Exception as exc:  # every case fails with this, once each
        pytest.fail(f"rs2triton.load({PROBE.name}) failed: {type(exc).__name__}: {exc}"[:3000], pytrace=False)


def _call(case: dict, fn, call: dict) -> str | None:
    """Why one call's answer is not rustc's (None when it is)."""
    args = [decode(a) for a in call["args"]]
    shown = f"{case['name']}({', '.join(show(a) for a in call['args'])})"
    if "panic" in call:
        Panic = _panic_class()
        try:
            got = fn(*args)
        except Exception as exc:
            text = str(exc)
            if Panic is None or not isinstance(exc, Panic):
                return (f"{shown}: raises {type(exc).__name__}: {text[:200]!r}, want rs2triton.runtime.host.Panic"
                        f"{'' if Panic else ' (no such class yet)'} with {call['panic']!r}")
            if call["panic"] not in text:
                return f"{shown}: panics with {text!r}, want Rust's message {call['panic']!r}"
            lines = [int(n) for n in re.findall(r"host_oracle\.rs:(\d+)", text)]
            if not any(case["line"] <= n <= case["end_line"] for n in lines):
                return (f"{shown}: the panic names no line {case['line']}-{case['end_line']} of host_oracle.rs "
                        f"(rustc's: {call['panic_line']}): {text!r}")
            return None
        return f"{shown}: returns {got!r}, want a panic: {call['panic']!r}"
    try:
        got = fn(*args)
    except Exception as exc:
        return f"{shown}: raises {type(exc).__name__}: {str(exc)[:300]}, want {show(call['result'])}"
    why = mismatch(call["result"], got, "result")
    return f"{shown} -> {why}" if why else None


def _failures(module, case: dict, calls=None, progress=None) -> list[str]:
    """Why the calls (all of the case's, or those numbered in ``calls``) differ from rustc."""
    fn = getattr(module.Probe, case["name"], None)
    if fn is None:
        return [f"Probe has no `{case['name']}` (host_oracle.rs line {case['line']})"]
    failures = []
    for i in range(len(case["calls"])) if calls is None else calls:
        if progress:
            progress(i)
        try:
            why = _call(case, fn, case["calls"][i])
        except BaseException as exc:  # a result that cannot even be compared
            why = f"{case['name']} call {i}: {type(exc).__name__}: {exc}"
        if why:
            failures.append(why)
    return failures


def _run_in_worker(module, cases: list[dict]) -> dict[str, list[str]]:
    """Every case's failures, computed in a forked worker: a call that hangs (a translation that
    computes `3 ** 4_000_000_000` whole) is killed after CALL_TIMEOUT_S and reported, and a new
    worker goes on from the next call."""
    results: dict[str, list[str]] = {c["name"]: [] for c in cases}
    start = (0, 0)  # (case, call) to start from
    while start[0] < len(cases):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: a line per call started, per failure and per case done
            os.close(r)
            try:
                with os.fdopen(w, "w", encoding="utf-8", buffering=1) as out:
                    for ci in range(start[0], len(cases)):
                        case = cases[ci]
                        first = start[1] if ci == start[0] else 0

                        def progress(i, ci=ci):
                            out.write(json.dumps(["call", ci, i]) + "\n")

                        why = _failures(module, case, range(first, len(case["calls"])), progress)
                        out.write(json.dumps(["done", ci, why]) + "\n")
            finally:
                os._exit(0)
        os.close(w)
        current, finished, buf = start, start[0] - 1, b""
        with os.fdopen(r, "rb", buffering=0) as pipe:
            while True:
                ready, _, _ = select.select([pipe], [], [], CALL_TIMEOUT_S)
                chunk = pipe.read(1 << 16) if ready else None
                if chunk:
                    buf += chunk
                    *lines, buf = buf.split(b"\n")
                    for line in lines:
                        kind, ci, detail = json.loads(line)
                        if kind == "call":
                            current = (ci, detail)
                        else:
                            results[cases[ci]["name"]] += detail
                            finished = ci
                    continue
                if chunk is None:
                    os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
        if finished == len(cases) - 1:
            break
        ci, i = current if current[0] > finished else (finished + 1, 0)
        case = cases[ci]
        if i < len(case["calls"]):
            why = f"did not return within {CALL_TIMEOUT_S:g} s" if chunk is None else "killed the worker process"
            results[case["name"]].append(f"{case['name']}({', '.join(show(a) for a in case['calls'][i]['args'])}): {why}")
        start = (ci, i + 1) if i + 1 < len(case["calls"]) else (ci + 1, 0)
    return results


@pytest.fixture(scope="module")
def answers(probe):
    if not hasattr(os, "fork"):
        return {c["name"]: _failures(probe, c) for c in FIXTURE["cases"]}
    return _run_in_worker(probe, FIXTURE["cases"])


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in FIXTURE["cases"]])
def test_host_code_gives_rustc_s_answer(answers, case):
    failures = answers[case["name"]]
    assert not failures, (f"{case['name']} ({case['group']}; host_oracle.rs:{case['line']}): "
                          f"{len(failures)} of {len(case['calls'])} calls differ from rustc:\n  "
                          + "\n  ".join(failures[:12]))


# ------------------------------------------------------------------ programs rustc rejects


@pytest.mark.parametrize("program", REJECTED, ids=[r["name"] for r in FIXTURE["rejected"]])
def test_host_code_rustc_rejects_is_rejected_where_rustc_says(program):
    from rs2triton.diagnostics import ICE_CODE, TranspileError
    from rs2triton.transpiler.driver.pipeline import transpile_source

    text = FIXTURE["rejected_head"] + program["items"]
    rustc = f"rustc: {program['code'] or 'error'} at {program['line']}:{program['col']}: {program['message']}"
    try:
        result = transpile_source(text, "probe.rs")
    except TranspileError as exc:
        first = exc.diagnostics[0]
        assert first.code != ICE_CODE, f"an internal error, not a rejection ({rustc}):\n{exc}"
        assert (first.line, first.col if program["col"] is not None else None) == (program["line"], program["col"]), \
            f"rejected at {first.line}:{first.col}, not where rustc says ({rustc}):\n{first.render()}"
        if program["code"]:
            said = f"{first.message}\n{first.hint or ''}"
            assert program["code"] in said, f"the diagnostic does not name `{program['code']}` ({rustc}):\n{first.render()}"
        return
    except Exception as exc:
        pytest.fail(f"not a TranspileError but {type(exc).__name__}: {exc} ({rustc})", pytrace=False)
    warned = "; ".join(f"{w.code} {w.message}" for w in result.warnings)
    pytest.fail(f"accepted ({rustc})" + (f"; warnings: {warned}" if warned else ""), pytrace=False)


def test_the_fixture_matches_the_probe():
    # each case's recorded line is its `pub fn` line in the probe (the generator wrote both)
    lines = PROBE.read_text(encoding="utf-8").splitlines()
    wrong = [c["name"] for c in FIXTURE["cases"] if not lines[c["line"] - 1].lstrip().startswith(f"pub fn {c['name']}(")]
    assert not wrong and lines[FIXTURE["cases"][-1]["end_line"] - 1] == "    }"
