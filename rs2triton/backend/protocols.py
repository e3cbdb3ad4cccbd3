"""What the backend's modules read of the backend (:class:`~rs2triton.backend.compiler.Backend`),
as a Protocol: ``aten.py``, ``wrapper.py`` and ``functional.py`` are handed the backend, and type
it by this, so that none of them imports ``compiler.py``, which imports them (no import cycle,
type checkers' imports included: tests/test_architecture.py)."""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rs2triton.backend.plan import Args, Plan
    from rs2triton.backend.report import Report
    from rs2triton.backend.tree import Tree
    from rs2triton.runtime.mapping_rules import Aten, Entry


class Folds(Protocol):
    """A graph's wrapper, as the backend keeps it: what it counted, added to the report when asked."""

    def fold(self) -> None: ...


class BackendView(Protocol):
    """The backend, as the graphs, their wrappers and ``backend.functional`` use it."""

    name: str
    strict: bool
    tree: Tree
    table: tuple[Entry, ...]
    _report: Report
    _signatures: dict[str, inspect.Signature]  # row name -> Python's signature of its schema
    _aten: dict[str, list[tuple[Entry, Aten]]]  # ATen overload -> the rows mapping it (aten.aten_index)
    _wrappers: weakref.WeakSet[Folds]

    def plan(self, entry: Entry, args: Args, grad: bool) -> Plan: ...

    def run(self, entry: Entry, args: tuple[Any, ...], kwargs: dict[str, Any], original: Callable[..., Any],
            node: str) -> Any: ...
