"""A compiled kernel's IR beside its Rust: ``rs2triton show --ir STAGE FILE.rs KERNEL``.

The kernel is compiled without a GPU (``tools/aot.py``) for a target, and the stage asked for
(``ttir``, ``ttgir``, ``llir``, ``ptx``, ``amdgcn``) is printed with the Rust interleaved, as
Compiler Explorer shows a compiler's output: each run of IR lines that came from one Rust line
follows that line (``// kernel.rs:38 | let a = T::load(...)``). The Rust line of an IR line is
the location the kernel carries (runtime/locations.py): MLIR's ``loc(...)`` (its ``#loc``
aliases followed), LLVM's ``!dbg`` (its ``DILocation``), and PTX's and AMD's ``.loc``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from rs2triton.diagnostics import Lines, terminal_text
from rs2triton.tools.run import RunError, quoted

if TYPE_CHECKING:
    from rs2triton.transpiler.frontend.items import Kernel

STAGES = {"ttir": "//", "ttgir": "//", "llir": ";", "ptx": "//", "amdgcn": ";"}


def compile_stage(file: str, kernel: str | None, stage: str, target: str, dtypes: dict[str, str],
                  consts: dict[str, str]) -> tuple[str, str, str]:
    """(the stage's text, the Rust file's path, the kernel's name) of ``kernel`` of ``file``,
    compiled for ``target`` (``cuda:90``, ``hip:gfx942``, ...)."""
    from rs2triton.tools.aot import TARGETS, compile_kernel
    from rs2triton.transpiler.pyast import python_name

    if stage not in STAGES:
        raise RunError(f"--ir {quoted(stage)} is not a stage; one of {', '.join(STAGES)}")
    if target not in TARGETS:
        raise RunError(f"--target {quoted(target)} is not a target; one of {', '.join(TARGETS)}")
    if stage == "ptx" and not target.startswith("cuda") or stage == "amdgcn" and not target.startswith("hip"):
        raise RunError(f"--ir {stage} is {'NVIDIA' if stage == 'ptx' else 'AMD'}'s; the target is {target}")
    os.environ.pop("TRITON_INTERPRET", None)  # (compiling: Triton in compile mode, before it is imported)
    from rs2triton.loading.loader import load

    module = load(file, interpret=False)
    kernels = module.__rs2triton_kernels__
    if kernel is None:
        if len(kernels) != 1:
            raise RunError(f"{file} has {len(kernels)} kernels ({', '.join(kernels)}): name one")
        kernel = next(iter(kernels))
    if kernel not in kernels:
        raise RunError(f"{file} has no kernel {quoted(kernel)}; its kernels: {', '.join(kernels)}")
    info = kernels[kernel]
    dtypes, values = _arguments(info, dtypes, consts)
    try:
        compiled = compile_kernel(getattr(module, python_name(kernel)), info, target, dtypes, values)
    except Exception as e:  # Triton's own error, at the Rust line where it can be found
        from rs2triton.runtime.errors import triton_diagnostic

        diag = triton_diagnostic(e, module)
        raise RunError(diag.render() if diag is not None else f"Triton could not compile `{kernel}`: {e}") from None
    text = compiled.asm.get(stage)
    if not isinstance(text, str):
        raise RunError(f"Triton made no {stage} for {target}")
    return text, str(module.__rs2triton_source__), kernel


def _arguments(info: Kernel, dtypes: dict[str, str], consts: dict[str, str]) -> tuple[dict[str, str], dict[str, object]]:
    """The kernel's dtype parameters (``--dtype D=TYPE``; each not given is ``f32``, or the first type
    its bound takes) and const generics' values (``-c NAME=VALUE``), checked as rustc checks
    ``kernel::<f16, 128>``: a name the kernel does not have, a type its parameter's bound does not
    take (rustc's E0277) and a value out of the const's type are errors; what the user typed is
    shown as Rust's ``{:?}`` shows a string."""
    from rs2triton.runtime.values import check_scalar
    from rs2triton.rust.types import SCALARS, SIGNATURE_TYPES

    generics = ", ".join([*(f"{d.name}: {d.bound}" for d in info.dtype_params),
                          *(f"const {c.name}: {c.rust_type}" for c in info.consts)]) or "none"
    missing = [c.name for c in info.consts if c.name not in consts]
    if missing:
        raise RunError(f"`{info.name}` needs a value for {', '.join(f'`{m}`' for m in missing)}: "
                       f"-c {missing[0]}=...")
    values: dict[str, object] = {}
    for name, text in consts.items():
        const = next((c for c in info.consts if c.name == name), None)
        if const is None:
            raise RunError(f"`{info.name}` has no const generic {quoted(name)}; its generics: {generics}")
        if const.rust_type == "bool" and text in ("true", "false"):
            values[name] = text == "true"
            continue
        try:
            value: int | float = int(text, 0)  # (check_scalar gives a float for a float type)
        except ValueError:
            raise RunError(f"-c {quoted(f'{name}={text}')}: `{name}: {const.rust_type}` takes "
                           f"{'`true` or `false`' if const.rust_type == 'bool' else 'an integer'}") from None
        if const.rust_type in SCALARS:
            try:
                value = check_scalar(const.rust_type, value, f"-c {name}: const generic `{name}: {const.rust_type}`")
            except (TypeError, ValueError) as e:
                raise RunError(str(e)) from None
        values[name] = value
    chosen: dict[str, str] = {}
    for name, ty in dtypes.items():
        param = info.dtype_param(name)
        if param is None:
            raise RunError(f"`{info.name}` has no dtype parameter {quoted(name)}; its generics: {generics}")
        accepts = info.accepted_dtypes(name)
        if ty not in SIGNATURE_TYPES:
            raise RunError(f"--dtype {quoted(f'{name}={ty}')}: not a Rust element type; `{name}: {param.bound}` "
                           f"takes {', '.join(accepts)}")
        if ty not in accepts:  # (rustc's E0277)
            raise RunError(f"--dtype {name}={ty}: the trait bound `{ty}: {param.bound}` is not satisfied; "
                           f"`{name}: {param.bound}` takes {', '.join(accepts)}")
        chosen[name] = ty
    for d in info.dtype_params:
        if d.name not in chosen:
            accepts = info.accepted_dtypes(d.name)
            chosen[d.name] = "f32" if "f32" in accepts or not accepts else accepts[0]
    return chosen, values


def rust_line_of_each(stage: str, text: str) -> list[int | None]:
    """The Rust line each line of a stage's text came from (None: none, or not known)."""
    lines = text.splitlines()
    if stage in ("ttir", "ttgir"):
        aliases = dict(re.findall(r"^(#loc\d*) = (loc\(.*\))\s*$", text, re.M))
        return [None if row.startswith("#loc") else _mlir_line(row, aliases) for row in lines]
    if stage == "llir":
        dbg = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(!\d+) = !DILocation\(line: (\d+)", text, re.M)}
        return [dbg.get(m.group(1)) if (m := re.search(r"!dbg (!\d+)", row)) else None for row in lines]
    out: list[int | None] = []
    current = None
    for row in lines:  # ptx, amdgcn: a `.loc` places the lines after it
        m = re.match(r"\s*\.loc\s+\d+\s+(\d+)", row)
        if m:
            current = int(m.group(1)) or None
            out.append(None)
        else:
            out.append(current if row.strip() else None)
    return out


def _mlir_line(row: str, aliases: dict[str, str]) -> int | None:
    at = row.rfind(" loc(")
    if at < 0:
        return None
    loc = row[at:]
    for _ in range(32):  # (aliases of aliases: name and call-site locations wrap others)
        m = re.search(r'loc\("[^"]*":(\d+)', loc)
        if m:
            return int(m.group(1)) or None
        ref = re.search(r"#loc\d*", loc)
        if ref is None or ref.group() not in aliases:
            return None
        loc = aliases[ref.group()]
    return None


def beside_rust(stage: str, text: str, rust_path: str) -> str:
    """The stage's text with the Rust interleaved: before each run of lines from one Rust line,
    a comment naming the file and line and showing its text."""
    comment = STAGES[stage]
    source = Lines.read(rust_path) or Lines(b"")  # (its lines as rustc counts them)
    name = Path(rust_path).name
    out: list[str] = []
    shown = None
    for row, line in zip(text.splitlines(), rust_line_of_each(stage, text), strict=True):
        if line is not None and line != shown:
            code = (source.text(line) or "").strip()
            out.append(f"{comment} {terminal_text(name)}:{line} | {terminal_text(code)}")
            shown = line
        out.append(row)
    return "\n".join(out) + "\n"

