"""``docs/ops.md`` and ``rs2triton ops``, generated from the op table (never edited by hand)."""

from __future__ import annotations

from rs2triton.transpiler.dsl.ops import COMPILED_ONLY, ENUMS, METHODS, OPS, REQUIRED, Op

_STATUS = {True: "tested", False: "mapped"}


def _status(op: Op) -> str:
    if op.rule == "untranslatable":
        return "error"
    return "compiled" if op.name in COMPILED_ONLY else _STATUS[op.tested]


def _signature(op: Op, receiver: bool = False) -> str:
    params = [p.name for p in op.params]
    if receiver:
        return f"{params[0]}.{op.name}({', '.join(params[1:])})"
    return f"T::{op.name}({', '.join(params)})"


def _target(op: Op) -> str:
    if op.rule == "binop":
        return f"`x {op.target} y`"
    if op.rule == "untranslatable":
        return "none"
    if op.rule in ("method", "cast"):
        return f"`x.{op.target}(...)`"
    return f"`{op.target}`"


def _drops(op: Op) -> str:
    dropped = [f"{p.name}={p.default!r}" for p in op.params if p.default is not REQUIRED and p.kw != ""]
    dropped += [f"{p.name} (always)" for p in op.params if p.kw == ""]
    return ", ".join(dropped)


def ops_markdown() -> str:
    lines = [
        "# DSL methods and their Triton translations",
        "",
        "<!-- Generated from rs2triton/transpiler/dsl/ops.py by `rs2triton ops --markdown`; do not edit. -->",
        "",
        f"All {len(OPS)} methods of the DSL's `Triton` trait, and the value methods. Arguments are",
        "positional in the DSL; the generated call uses Triton's keywords and leaves out any argument",
        "that equals Triton's default (listed under *dropped when*). *tested*: checked numerically under",
        "the interpreter and compiled for sm_90 and gfx942 by the test-suite; *compiled*: compiled for",
        "sm_90 by the test-suite (the interpreter cannot run it); *mapped*: translated by the table but",
        "not yet covered by a test; *error*: Triton has no equivalent, and a call is a located error",
        "(tested).",
        "",
    ]
    groups: dict[str, list[Op]] = {}
    for op in sorted(OPS.values(), key=lambda o: o.name):
        groups.setdefault(op.group, []).append(op)
    for group in sorted(groups):
        lines += [f"## {group}", "", "| DSL | Triton | dropped when | status | note |", "|---|---|---|---|---|"]
        for op in groups[group]:
            lines.append(f"| `{_signature(op)}` | {_target(op)} | {_drops(op)} | {_status(op)} | {op.note} |")
        lines.append("")
    lines += ["## value methods", "", "| DSL | Triton | status | note |", "|---|---|---|---|"]
    for op in METHODS.values():
        lines.append(f"| `{_signature(op, receiver=True)}` | {_target(op)} | {_STATUS[op.tested]} | {op.note} |")
    lines += ["", "## enums", "", "| DSL | Python |", "|---|---|"]
    for enum, values in ENUMS.items():
        for k, v in values.items():
            lines.append(f"| `{enum}::{k}` | " + (f"`{v!r}` |" if v is not None else "none in Triton: an error |"))
    n_tested = sum(op.tested for op in OPS.values())
    n_compiled = sum(op.name in COMPILED_ONLY for op in OPS.values())
    n_error = sum(op.rule == "untranslatable" for op in OPS.values())
    lines += ["", f"{n_tested} tested, {n_compiled} compiled only, {n_error} errors, "
              f"{len(OPS) - n_tested - n_compiled - n_error} mapped.", ""]
    return "\n".join(lines)


def ops_table() -> str:
    rows = []
    for op in sorted(OPS.values(), key=lambda o: o.name):
        rows.append(f"{op.name:<26} {_target(op).strip('`'):<32} {_status(op)}")
    return "\n".join(rows) + "\n"
