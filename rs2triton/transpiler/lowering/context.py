"""What lowering one file needs beyond a single function: the file's other items and what the
module being generated gathers on the way (helpers, constants, imports, parameter comments)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tree_sitter import Node

from rs2triton.diagnostics import Diagnostic
from rs2triton.transpiler.frontend.source import SourceMap

if TYPE_CHECKING:
    from rs2triton.transpiler.lowering.values import Known

# {parameter: (the comment lines above it, the comment ending its line)}
ParamComments = dict[str, tuple[list[str], str | None]]


@dataclass
class ModuleContext:
    smap: SourceMap
    functions: dict[str, Node]  # the file's plain fns by name (combine-function candidates)
    consts: dict[str, Node]  # the file's module-level const items by name
    imports: set[str] = field(default_factory=set)
    helpers: dict[str, ast.FunctionDef] = field(default_factory=dict)  # @triton.jit helpers by Rust name
    used_consts: dict[str, ast.stmt] = field(default_factory=dict)  # module constants kernels use
    lowering_helpers: set[str] = field(default_factory=set)  # helpers being lowered (recursion)
    evaluating_consts: set[str] = field(default_factory=set)  # module constants being evaluated (cycles)
    # the values of module constants as rustc's lints know them (values.Known), as each target evaluated them
    known_consts: dict[str, Known] = field(default_factory=dict)
    # what rustc's lints and constant evaluation reject (E0012): rustc runs them only once the
    # whole crate's types check, so they are reported after lowering, when nothing else was
    # (driver/pipeline.py); a type error anywhere in the file is reported instead
    deferred: list[Diagnostic] = field(default_factory=list)
    param_comments: dict[str, ParamComments] = field(default_factory=dict)  # by function name
    features: frozenset[str] = frozenset({"cuda", "training"})  # the crate features `#[cfg]` sees
    # helpers called from kernels, one per shape of their arguments: key -> (Python name, returns)
    helper_calls: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    kernel_names: set[str] = field(default_factory=set)  # the jit functions' names (helpers keep clear)
    debug: bool = False  # Rust's debug-build checks in kernels (kernel/debug.py)
