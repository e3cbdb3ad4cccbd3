"""The standard library as host code uses it, as data: which methods of slices, iterators and
``Option`` host code may call, how many arguments each takes, and what it gives. The scalar
methods (``i32::saturating_sub``, ``f32::max``...) are :data:`rs2triton.rust.std.INT_METHODS`
and ``FLOAT_METHODS``, with the functions that compute them; :mod:`.calls` builds the calls.
"""

from __future__ import annotations

from typing import NamedTuple


class SeqMethod(NamedTuple):
    """A method of a slice, an iterator or an Option: its arguments (``closure``: the last one is
    a closure over the items), and the Python it becomes (see :mod:`.calls`)."""

    arity: int
    form: str
    closure: bool = False


# Methods that give the value itself in Python (a reference, a copy, a conversion to a view).
SAME = frozenset({"iter", "into_iter", "iter_mut", "copied", "cloned", "as_slice", "as_ref", "by_ref", "to_owned",
                  "clone", "as_str", "to_string", "into"})

SEQ_METHODS: dict[str, SeqMethod] = {
    "len": SeqMethod(0, "len"), "is_empty": SeqMethod(0, "is_empty"), "first": SeqMethod(0, "first"),
    "last": SeqMethod(0, "last"), "get": SeqMethod(1, "get"), "contains": SeqMethod(1, "contains"),
    "to_vec": SeqMethod(0, "list"), "push": SeqMethod(1, "append"), "sort": SeqMethod(0, "sort"),
    "sort_unstable": SeqMethod(0, "sort"), "reverse": SeqMethod(0, "reverse"), "dedup": SeqMethod(0, "dedup"),
    "extend_from_slice": SeqMethod(1, "extend"), "insert": SeqMethod(2, "insert"), "pop": SeqMethod(0, "pop"),
    "chunks": SeqMethod(1, "chunks"), "windows": SeqMethod(1, "windows"),
}
ITER_METHODS: dict[str, SeqMethod] = {
    "map": SeqMethod(1, "map", True), "filter": SeqMethod(1, "filter", True), "all": SeqMethod(1, "all", True),
    "any": SeqMethod(1, "any", True), "enumerate": SeqMethod(0, "enumerate"), "zip": SeqMethod(1, "zip"),
    "rev": SeqMethod(0, "rev"), "take": SeqMethod(1, "take"), "skip": SeqMethod(1, "skip"),
    "step_by": SeqMethod(1, "step_by"), "sum": SeqMethod(0, "sum"), "product": SeqMethod(0, "product"),
    "max": SeqMethod(0, "max"), "min": SeqMethod(0, "min"), "count": SeqMethod(0, "count"),
    "last": SeqMethod(0, "last"), "collect": SeqMethod(0, "collect"), "fold": SeqMethod(2, "fold", True),
    "position": SeqMethod(1, "position", True), "find": SeqMethod(1, "find", True),
    "flat_map": SeqMethod(1, "flat_map", True), "max_by_key": SeqMethod(1, "max_by_key", True),
    "min_by_key": SeqMethod(1, "min_by_key", True),
}
OPTION_METHODS: dict[str, SeqMethod] = {
    "unwrap": SeqMethod(0, "unwrap"), "expect": SeqMethod(1, "expect"), "unwrap_or": SeqMethod(1, "unwrap_or"),
    "unwrap_or_default": SeqMethod(0, "unwrap_or_default"), "is_some": SeqMethod(0, "is_some"),
    "is_none": SeqMethod(0, "is_none"), "map": SeqMethod(1, "map_option", True),
    "and_then": SeqMethod(1, "and_then", True), "filter": SeqMethod(1, "filter_option", True),
    "or": SeqMethod(1, "or"), "zip": SeqMethod(1, "zip_option"),
}
