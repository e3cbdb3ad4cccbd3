"""The launcher definitions a generated module carries beside its ``@triton.jit`` functions.

Each kernel gets one ``Launcher`` (see :mod:`rs2triton.runtime.launcher`) named like
teenygrad's kernel struct (``relu_forward`` -> ``ReluForward``), built from a
literal of its Rust signature: parameter types, const generics, accepted dtypes,
access markers, the backward kernel and any tuning from ``pyproject.toml``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from rs2triton.diagnostics import TranspileError
from rs2triton.transpiler.pyast import launcher_name

if TYPE_CHECKING:
    from rs2triton.transpiler.emit.facts import KernelFacts
    from rs2triton.transpiler.frontend.items import Kernel
    from rs2triton.transpiler.frontend.source import SourceMap

RESERVED = frozenset({"Launcher", "triton", "tl"})


class _TuningTable(TypedDict):
    key: list[str]
    configs: list[dict[str, Any]]  # a config: meta-parameter and option names -> TOML values


class Tuning(_TuningTable, total=False):  # (not NotRequired: Python 3.10 has none)
    """A kernel's checked tuning table, the launcher's ``tuning=`` literal
    (:func:`rs2triton.transpiler.driver.tuning.tuning_for`): ``key`` and ``configs`` always."""

    reset_to_zero: list[str]
    restore_value: list[str]


class SignatureLiteral(TypedDict, total=False):
    """The keyword arguments of a kernel's ``Launcher(...)`` that its Rust signature decides."""

    params: dict[str, str]
    consts: dict[str, str]
    dtypes: dict[str, str]
    access: dict[str, str]
    backward: str


class LauncherExtras(TypedDict, total=False):
    """The literal keyword arguments of a kernel's ``Launcher(...)`` besides its signature's
    (written after them)."""

    names: dict[str, str]
    tuning: Tuning
    facts: KernelFacts


def _bare(name: str) -> str:
    return name.removeprefix("r#")


def signature_literal(kernel: Kernel) -> SignatureLiteral:
    """The keyword arguments of a kernel's ``Launcher(...)`` from its signature, as plain data."""
    # A raw identifier (`r#type`) is `type` to a caller.
    lit: SignatureLiteral = {"params": {_bare(p.name): ("*" if p.kind == "pointer" else "") + p.elem for p in kernel.params}}
    if kernel.consts:
        lit["consts"] = {_bare(c.name): c.rust_type for c in kernel.consts}
    if kernel.dtype_params:
        lit["dtypes"] = {d.name: ", ".join(kernel.accepted_dtypes(d.name)) for d in kernel.dtype_params}
    access = {_bare(p.name): p.access for p in kernel.params if p.access}
    if access:
        lit["access"] = access
    if kernel.backward:
        lit["backward"] = kernel.backward.split("::")[-1]
    return lit


def launcher_source(kernel: Kernel, fn_name: str | None = None, python_names: list[str] | None = None,
                    tuning: Tuning | None = None, op: str | None = None, debug: bool = False,
                    facts: KernelFacts | None = None) -> str:
    """``fn_name``: the jit function's name; ``python_names``: its parameters (Rust parameters, then
    const generics). Where lowering renamed one (a Python keyword gets a trailing ``_``), the
    launcher is told. ``debug``: the kernel checks what Rust's debug build checks, and its launcher
    compiles it so. ``facts``: what :func:`~rs2triton.transpiler.emit.facts.kernel_facts` found
    (written only when there is any). Laid out as ``ruff format`` would."""
    name = launcher_name(kernel.name)
    lit = signature_literal(kernel)
    extras: LauncherExtras = {}
    rust = [_bare(p.name) for p in kernel.params] + [_bare(c.name) for c in kernel.consts]
    if python_names is not None and len(python_names) == len(rust):
        renamed = {r: py for r, py in zip(rust, python_names, strict=True) if r != py}
        if renamed:
            extras["names"] = renamed
    if tuning:
        extras["tuning"] = tuning
    if facts:
        extras["facts"] = facts
    from rs2triton.transpiler.emit.literals import INDENT, literal_lines, string_literal

    lines = [f"{name} = Launcher(", f"{INDENT}{fn_name or kernel.name},", f"{INDENT}{string_literal(name)},"]
    for k, v in [*lit.items(), *extras.items()]:
        lines += literal_lines(f"{k}=", v, INDENT, ",")
    if op is not None:  # a class of the module (a Python name, not a literal)
        lines.append(f"{INDENT}op={op},")
    if debug:
        lines.append(f"{INDENT}debug=True,")
    return "\n".join([*lines, ")"])


def describe(kernel: Kernel) -> str:
    """One kernel's launcher for ``rs2triton kernels``: name, const generics, parameters, dtypes, backward."""
    lit = signature_literal(kernel)
    consts = ", ".join(f"{k}: {v}" for k, v in lit.get("consts", {}).items())
    marks = lit.get("access", {})
    params = ", ".join((f"{marks[_bare(p.name)]} " if _bare(p.name) in marks else "")
                       + (f"{_bare(p.name)}: *{p.elem}" if p.kind == "pointer" else f"{_bare(p.name)}: {p.elem}")
                       for p in kernel.params)
    lines = [f"{launcher_name(kernel.name)}({consts}) -> {kernel.name}({params})"]
    lines += [f"    {d}: {v}" for d, v in lit.get("dtypes", {}).items()]
    if "backward" in lit:
        lines.append(f"    backward: {lit['backward']}")
    return "\n".join(lines)


def check_names(kernels: list[Kernel], taken: set[str], smap: SourceMap) -> None:
    """Launcher names must not collide with each other or with the module's other names."""
    errors = []
    seen: dict[str, str] = {}
    for k in kernels:
        name = launcher_name(k.name)
        clash = seen.get(name) or (name if name in taken or name in RESERVED else None)
        if clash:
            errors.append(smap.diag(k.name_node, "E0007",
                                    f"kernel `{k.name}`'s launcher `{name}` would clash with `{clash}`",
                                    "rename the kernel, or transpile with --plain (no launchers)"))
        seen[name] = k.name
    if errors:
        raise TranspileError(errors)
