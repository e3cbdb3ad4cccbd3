"""Comparing kernel outputs with their references, with failures that say where.

``assert_matches("out_ptr", got, want)`` fails with every differing element named by
output and index, e.g. ``out_ptr[3, 17]: got 1.5, expected 2.0``, instead of a positional
slot or a bare "tensors are not close".
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

SHOWN = 8  # differing elements listed in a failure message
# torch.testing.assert_close's defaults, (rtol, atol) by dtype: used when a test gives none.
_DEFAULT_TOL = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5), torch.float32: (1.3e-6, 1e-5),
                torch.float64: (1e-7, 1e-7)}


def _tensor(x) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu()
    t = torch.tensor(x)
    return t.double() if t.is_floating_point() else t


def _fmt(v) -> str:
    """A value as Python writes it, floats to 8 significant digits (f32 noise hidden)."""
    return repr(float(f"{v:.8g}")) if isinstance(v, float) else str(v)


def mismatches(got, want, atol: float = 0.0, rtol: float = 0.0, equal_nan: bool = False) -> torch.Tensor:
    """A bool tensor: True where ``got`` differs from ``want`` beyond ``atol + rtol * |want|``."""
    g, w = _tensor(got), _tensor(want)
    if not (g.is_floating_point() or w.is_floating_point()):
        return (g.long() - w.long()).abs() > atol if atol else g.long() != w.long()
    g, w = g.double(), w.double()
    close = (g - w).abs() <= atol + rtol * w.abs()
    close |= g == w  # infinities of the same sign
    if equal_nan:
        close |= g.isnan() & w.isnan()
    return ~close


def assert_matches(name: str, got, want, *, atol: float | None = None, rtol: float | None = None,
                   equal_nan: bool = False,
                   check_dtype: bool = True, labels: Sequence[str] | None = None) -> None:
    """``got`` equals ``want`` (within ``atol + rtol * |want|``), element by element.

    Without tolerances, those of ``torch.testing.assert_close`` for ``want``'s dtype
    apply (exact for integers).
    ``name`` is the output as the kernel calls it (``out_ptr``); ``labels`` optionally
    names what each element of a 1-D output (or each row of a 2-D one) holds
    (``"a % b"``), for kernels that pack several results into one buffer.
    """
    g, w = _tensor(got), _tensor(want)
    if check_dtype and isinstance(got, torch.Tensor) and isinstance(want, torch.Tensor) and g.dtype != w.dtype:
        raise AssertionError(f"{name}: dtype {g.dtype}, expected {w.dtype}")
    if g.shape != w.shape:
        raise AssertionError(f"{name}: shape {tuple(g.shape)}, expected {tuple(w.shape)}")
    default_rtol, default_atol = _DEFAULT_TOL.get(w.dtype, (0.0, 0.0))
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    bad = mismatches(g, w, atol, rtol, equal_nan)
    if not bad.any():
        return
    where = bad.nonzero().tolist()
    lines = []
    for idx in where[:SHOWN]:
        label = f" ({labels[idx[0]]})" if labels is not None and idx and idx[0] < len(labels) else ""
        at = ", ".join(map(str, idx))
        lines.append(f"  {name}[{at}]{label}: got {_fmt(g[tuple(idx)].item())}, "
                     f"expected {_fmt(w[tuple(idx)].item())}")
    more = f"\n  ... and {len(where) - SHOWN} more" if len(where) > SHOWN else ""
    tol = f" (atol={atol:g}, rtol={rtol:g})" if atol or rtol else ""
    raise AssertionError(f"{name}: {len(where)} of {bad.numel()} elements differ{tol}\n" + "\n".join(lines) + more)


def slot_labels(rust_file: str, kernel: str) -> list[str]:
    """What a kernel stores at each constant offset, as its Rust source writes it.

    For kernels that pack scalar results into one buffer (``T::store(out.add_offsets(3), a % b, ...)``):
    label ``i`` is the Rust expression stored at offset ``i`` (several, when branches store different
    ones, joined with ``|``), so a failure says which computation went wrong.
    """
    from pathlib import Path

    from rs2triton.transpiler.frontend.parse import named_children, parse, text
    from rs2triton.transpiler.frontend.source import SourceMap

    source = Path(rust_file).read_bytes()
    root = parse(source, SourceMap(rust_file, source)).root_node
    fn = next(n for n in root.named_children
              if n.type == "function_item" and text(n.child_by_field_name("name")) == kernel)
    slots: dict[int, list[str]] = {}
    stack = [fn]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.named_children))
        if node.type != "call_expression" or text(node.child_by_field_name("function")) != "T::store":
            continue
        args = named_children(node.child_by_field_name("arguments"))
        dest = args[0] if args else None
        if dest is None or dest.type != "call_expression":
            continue
        offset = named_children(dest.child_by_field_name("arguments"))
        if text(dest.child_by_field_name("function")).endswith(".add_offsets") and offset \
                and offset[0].type == "integer_literal":
            labels = slots.setdefault(int(text(offset[0]), 0), [])
            if text(args[1]) not in labels:
                labels.append(" ".join(text(args[1]).split()))
    return [" | ".join(slots.get(i, ["?"])) for i in range(max(slots, default=-1) + 1)]
