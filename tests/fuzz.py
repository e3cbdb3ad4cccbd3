"""A seeded mutation fuzzer for the transpiler: no input may crash it.

Every input is a real kernel file of the repository (kernels_rs/*.rs,
tests/kernels/*.rs, tests/filecheck/*.rs) with one to three mutations, byte-level (random bytes,
bit flips, invalid UTF-8, NUL, truncation) or token-level (deleted, duplicated
or swapped lines and tokens, keywords and literals where they do not belong,
one identifier renamed to another, a line of another kernel file spliced in). Input ``i`` of seed ``s`` is the same on
every machine, so a run is reproducible from its seed alone.

An input passes when it transpiles to a module that compiles, or when it is
rejected with well-formed diagnostics: each one located inside the file,
rendered with ``file:line:col``, and none of them an internal error (E0999).
Anything else - an exception, an internal error, a diagnostic off the end of
the file - is a crash: the input is written to a ``crash-<hash>.rs`` file that
``python -m tests.fuzz --replay FILE`` replays; fixed crashers go into
``tests/fuzz_corpus/``, which the suite replays on every run.

Each mutant is lowered and its module compiled in-process (``lower_source``);
``ruff format`` (a subprocess) runs once per chunk, over a sample of the
mutants that transpiled whose modules the printer says it laid out exactly: ruff must
leave each as it is (a difference is a crash too).

    python -m tests.fuzz --count 20000 --seed 7     # a longer run
    python -m tests.fuzz --replay crash-0123abcd.rs # one saved input
    python -m tests.fuzz --seeds my_kernels/        # mutate other kernel files
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rs2triton.diagnostics import CODES, ICE_CODE, TranspileError  # noqa: E402
from rs2triton.transpiler.driver.pipeline import Result, lower_source  # noqa: E402
from tests.ruff_format import not_as_ruff_lays_out  # noqa: E402

CORPUS = ROOT / "tests" / "fuzz_corpus"
FUZZ_PATH = "fuzz.rs"  # the display path of every mutant


def seed_sources() -> list[bytes]:
    """The repository's kernels; tests/filecheck/ calls every DSL method, so every op rule gets mutated."""
    files = [p for d in ("kernels_rs", "tests/kernels", "tests/filecheck") for p in sorted((ROOT / d).glob("*.rs"))]
    return [p.read_bytes() for p in files]


# ----------------------------------------------------------------- mutations
_TOKEN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|\s+|.", re.S)
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
KEYWORDS = [b"fn", b"let", b"mut", b"if", b"else", b"for", b"in", b"while", b"loop", b"match", b"return",
            b"break", b"continue", b"const", b"static", b"struct", b"enum", b"impl", b"trait", b"pub", b"use",
            b"mod", b"as", b"where", b"unsafe", b"move", b"ref", b"self", b"Self", b"true", b"false", b"T",
            b"#[kernel]", b"#[tiled_kernel]", b"T::Pointer<f32>", b"::", b"<", b">", b"&", b"|", b"..", b"..=",
            b"=>", b"->", b"'a", b"?", b"!", b"#", b"$", b"@", b"\\", b"{", b"}", b"(", b")", b"[", b"]",
            b";", b",", b"_", b"\"", b"'", b"/*", b"//", b"r#\"", b"0..", b"1e400", b"0x", b"-"]
LITERALS = [b"0", b"1", b"-1", b"2", b"255", b"256", b"65536", b"2147483647", b"2147483648", b"4294967296",
            b"9223372036854775807", b"18446744073709551616", b"340282366920938463463374607431768211456",
            b"0.0", b"1e38", b"1e400", b"-0.0", b"1_000", b"0x7fff_ffff", b"0b1010", b"0o17", b"1u8",
            b"300u8", b"1i64", b"1.5f32", b"1f64", b"'a'", b"\"s\"", b"b'x'", b"1usize", b"!0"]
INVALID_UTF8 = [b"\xff", b"\xfe", b"\xc3", b"\xc0\xaf", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
                b"\xf8\x88\x80\x80\x80", b"\x80", b"\xbf\xbf"]


def _tokens(src: bytes) -> list[bytes]:
    return _TOKEN.findall(src)


def _pos(rng: random.Random, n: int) -> int:
    return rng.randrange(n) if n else 0


def m_random_bytes(rng, src):
    out = bytearray(src)
    for _ in range(rng.randint(1, 4)):
        i = _pos(rng, len(out))
        if out:
            out[i] = rng.randrange(256)
    return bytes(out)


def m_bit_flip(rng, src):
    out = bytearray(src)
    if out:
        i = _pos(rng, len(out))
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def m_invalid_utf8(rng, src):
    i = _pos(rng, len(src) + 1)
    return src[:i] + rng.choice(INVALID_UTF8) + src[i:]


def m_nul(rng, src):
    i = _pos(rng, len(src) + 1)
    return src[:i] + b"\x00" * rng.randint(1, 3) + src[i:]


def m_truncate(rng, src):
    return src[:_pos(rng, len(src) + 1)]


def m_garbage(rng, src):
    """A short stretch of random bytes pasted in."""
    i = _pos(rng, len(src) + 1)
    return src[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 16))) + src[i:]


def m_delete_line(rng, src):
    lines = src.splitlines(keepends=True)
    if lines:
        del lines[_pos(rng, len(lines))]
    return b"".join(lines)


def m_duplicate_line(rng, src):
    lines = src.splitlines(keepends=True)
    if lines:
        i = _pos(rng, len(lines))
        lines.insert(_pos(rng, len(lines) + 1), lines[i])
    return b"".join(lines)


def m_swap_lines(rng, src):
    lines = src.splitlines(keepends=True)
    if len(lines) > 1:
        i, j = _pos(rng, len(lines)), _pos(rng, len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


def _significant(toks: list[bytes]) -> list[int]:
    return [i for i, t in enumerate(toks) if not t.isspace()]


def m_swap_tokens(rng, src):
    toks = _tokens(src)
    sig = _significant(toks)
    if len(sig) > 1:
        i = rng.choice(sig)
        # Mostly a neighbour (plausible typos), sometimes anywhere.
        k = sig.index(i)
        j = sig[min(len(sig) - 1, k + 1)] if rng.random() < 0.7 else rng.choice(sig)
        toks[i], toks[j] = toks[j], toks[i]
    return b"".join(toks)


def m_delete_token(rng, src):
    toks = _tokens(src)
    sig = _significant(toks)
    if sig:
        del toks[rng.choice(sig)]
    return b"".join(toks)


def m_duplicate_token(rng, src):
    toks = _tokens(src)
    sig = _significant(toks)
    if sig:
        i = rng.choice(sig)
        toks.insert(i, toks[rng.choice(sig)])
    return b"".join(toks)


def m_keyword(rng, src):
    toks = _tokens(src)
    sig = _significant(toks)
    kw = rng.choice(KEYWORDS)
    if sig:
        i = rng.choice(sig)
        if rng.random() < 0.5:
            toks[i] = kw
        else:
            toks.insert(i, kw + b" ")
    return b"".join(toks)


def m_literal(rng, src):
    toks = _tokens(src)
    nums = [i for i, t in enumerate(toks) if t[:1].isdigit()] or _significant(toks)
    if nums:
        toks[rng.choice(nums)] = rng.choice(LITERALS)
    return b"".join(toks)


def m_rename(rng, src):
    """One identifier becomes another of the file (a repeated parameter, a shadowed name...)."""
    toks = _tokens(src)
    idents = [i for i, t in enumerate(toks) if _IDENT.fullmatch(t)]
    if idents:
        toks[rng.choice(idents)] = toks[rng.choice(idents)]
    return b"".join(toks)


def m_splice(rng, src, sources=None):
    """A line of another kernel file pasted in (its names, ops and nesting where they do not belong)."""
    other = rng.choice(sources or [src]).splitlines(keepends=True)
    lines = src.splitlines(keepends=True)
    if other:
        lines.insert(_pos(rng, len(lines) + 1), other[_pos(rng, len(other))])
    return b"".join(lines)


BYTE_MUTATORS = [m_random_bytes, m_bit_flip, m_invalid_utf8, m_nul, m_truncate, m_garbage]
TOKEN_MUTATORS = [m_delete_line, m_duplicate_line, m_swap_lines, m_swap_tokens, m_delete_token,
                  m_duplicate_token, m_keyword, m_literal, m_rename, m_splice]


def mutant(seed: int, index: int, sources: list[bytes]) -> tuple[bytes, list[str]]:
    """Input ``index`` of run ``seed``, and the names of the mutations applied."""
    rng = random.Random(f"{seed}:{index}")
    src = rng.choice(sources)
    # Token-level mutations mostly: they get past the parser into the lowerer.
    pool = TOKEN_MUTATORS if rng.random() < 0.75 else BYTE_MUTATORS
    applied = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        m = rng.choice(pool)
        src = m(rng, src, sources) if m is m_splice else m(rng, src)
        applied.append(m.__name__[2:])
    return src, applied


# ----------------------------------------------------------------- checking
def check(data: bytes, path: str = FUZZ_PATH) -> tuple[str, str | None, Result | None]:
    """(outcome, problem, unformatted result): outcome is "ok", "rejected" or "crash"."""
    try:
        result = lower_source(data, path)
        if result.text is not None:
            compile(result.text, path, "exec", dont_inherit=True)
    except TranspileError as err:
        problem = diagnostics_problem(err, data, path)
        return ("crash", problem, None) if problem else ("rejected", None, None)
    except Exception:  # noqa: BLE001 - exactly what the fuzzer looks for
        return "crash", traceback.format_exc(), None
    return "ok", None, result


def diagnostics_problem(err: TranspileError, data: bytes, path: str) -> str | None:
    """Why these diagnostics are not acceptable for a user error, or None."""
    if not err.diagnostics:
        return "TranspileError without diagnostics"
    n_lines = len(data.splitlines()) or 1
    for d in err.diagnostics:
        try:
            rendered = d.render()
        except Exception:  # noqa: BLE001
            return f"diagnostic {d!r} does not render:\n{traceback.format_exc()}"
        if d.code == ICE_CODE:
            return f"internal error:\n{rendered}"
        if d.code not in CODES:
            return f"undocumented code {d.code}:\n{rendered}"
        if not (1 <= d.line <= n_lines + 1 and d.col >= 1):
            return f"diagnostic outside the file ({n_lines} lines):\n{rendered}"
        if f"{path}:{d.line}:{d.col}" not in rendered or not d.message:
            return f"diagnostic without location or message:\n{rendered}"
    return None


@dataclass
class Report:
    seed: int
    count: int
    seconds: float = 0.0
    outcomes: Counter = field(default_factory=Counter)
    crashes: list[tuple[int, list[str], str, Path | None]] = field(default_factory=list)
    formatted: int = 0
    inexact: int = 0  # sampled modules with a long line the printer left as it is

    def summary(self) -> str:
        return (f"seed {self.seed}: {self.count} inputs in {self.seconds:.1f}s: "
                f"{self.outcomes['ok']} transpiled ({self.formatted} of them checked against ruff, "
                f"{self.inexact} with a line left long), "
                f"{self.outcomes['rejected']} rejected with diagnostics, {len(self.crashes)} crashes")


def save_crash(data: bytes, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"crash-{hashlib.sha256(data).hexdigest()[:12]}.rs"
    path.write_bytes(data)
    return path


def fuzz(seed: int, count: int, crash_dir: Path | None = None, format_sample: int = 20, start: int = 0,
         sources: list[bytes] | None = None) -> Report:
    """Run mutants ``start .. start+count`` of ``seed``; crashers are saved under ``crash_dir`` when given.

    ``sources`` replaces the repository's kernels as the files to mutate.
    """
    sources = sources or seed_sources()
    report = Report(seed, count)
    t0 = time.perf_counter()
    to_format: list[tuple[int, Result]] = []
    for i in range(start, start + count):
        data, applied = mutant(seed, i, sources)
        outcome, problem, result = check(data)
        report.outcomes[outcome] += 1
        if outcome == "crash":
            saved = save_crash(data, crash_dir) if crash_dir is not None else None
            report.crashes.append((i, applied, problem, saved))
        elif result is not None and result.text is not None and len(to_format) < format_sample and i % 5 == 0:
            if result.exact_layout:
                to_format.append((i, result))
            else:
                report.inexact += 1
    # What transpiled is laid out as ruff lays it out: one ruff call for the sample.
    for k in not_as_ruff_lays_out([r.text for _, r in to_format]):
        data, applied = mutant(seed, to_format[k][0], sources)
        saved = save_crash(data, crash_dir) if crash_dir is not None else None
        report.crashes.append((to_format[k][0], applied, "the printer's layout differs from ruff's", saved))
    report.formatted = len(to_format)
    report.seconds = time.perf_counter() - t0
    return report


def crash_kind(problem: str) -> str:
    """A short label for a crash: the exception and the rs2triton function that raised it."""
    errors = re.findall(r"^(\w+(?:Error|Exception|Exit)\b[^\n]{0,60})", problem, re.M)
    frames = re.findall(r'rs2triton/(\w+\.py)", line \d+, in (\w+)', problem)
    where = f" in {frames[-1][0]}:{frames[-1][1]}" if frames else ""
    return (errors[-1] if errors else problem.strip().splitlines()[0][:80]) + where


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--crash-dir", type=Path, default=ROOT / "build" / "fuzz-crashes")
    ap.add_argument("--replay", type=Path, nargs="*", help="check these saved inputs instead of fuzzing")
    ap.add_argument("--seeds", type=Path, nargs="*",
                    help="mutate these .rs files (or the .rs files under these folders) instead of the repository's")
    args = ap.parse_args(argv)
    if args.replay is not None:
        bad = 0
        for p in args.replay:
            outcome, problem, _ = check(p.read_bytes())
            print(f"{p}: {outcome}")
            if problem:
                bad += 1
                print(problem)
        return 1 if bad else 0
    seeds = None
    if args.seeds:
        files = [f for p in args.seeds for f in (sorted(p.rglob("*.rs")) if p.is_dir() else [p])]
        seeds = [f.read_bytes() for f in files]
    report = fuzz(args.seed, args.count, args.crash_dir, sources=seeds)
    kinds = Counter(crash_kind(problem) for _, _, problem, _ in report.crashes)
    for kind, n in kinds.most_common():
        print(f"{n:6d}  {kind}")
    for i, applied, _problem, saved in report.crashes[:20]:
        print(f"crash: input {i} ({'+'.join(applied)}) saved as {saved}")
    print(report.summary())
    return 1 if report.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
