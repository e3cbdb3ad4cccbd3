"""``#[tiled_kernel]``, expanded as teenygrad's macro expands it (``tiled_kernel.rs`` on its tile
branch), into the ``#[kernel]`` it stands for.

The macro takes ``#[kernel]``'s arguments; a parameter ``x: In<Tile<T, D>>`` (or ``Out<..>``,
``InOut<..>``) is ``x: In<T::Pointer<D>>`` in the device signature; and when any ``In``/``Out``
Tile parameter is there, it splices a prelude ahead of the author's body (the kernel must then
declare ``const BLOCK_SIZE: i32`` and ``n_elements: i32``)::

    let pid = T::program_id(Axis::X);
    let block_start = pid * BLOCK_SIZE;
    let offsets = T::arange(0, BLOCK_SIZE) + block_start;
    let in_bounds = offsets.lt(n_elements);
    let x = Tile::<T, D> { tensor: T::load(x.add_offsets(offsets), Some(in_bounds), None, &[], None,
                                          None, None, false), mask: Some(in_bounds) };   // each In, in order
    let y = Tile::<T, T::Pointer<D>> { tensor: y.add_offsets(offsets), mask: Some(in_bounds) };  // each Out

The expansion is a text edit of the file, lines kept: the types are rewritten where they are
and the prelude goes on the line of the body's ``{``, so every statement keeps its Rust line
(and the line map, comments and diagnostics stay true). The result is parsed again and
lowered as any ``#[kernel]``.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node, Tree

from rs2triton.diagnostics import TranspileError
from rs2triton.transpiler.frontend.parse import named_children, text, written
from rs2triton.transpiler.frontend.source import SourceMap

MARKERS = ("In", "Out", "InOut")


def _attr_is_tiled(attr_item: Node) -> Node | None:
    """The identifier `tiled_kernel` of a `#[tiled_kernel]` / `#[teeny_macros::tiled_kernel(..)]`."""
    attr = next((c for c in attr_item.named_children if c.type == "attribute"), None)
    if attr is None or not attr.named_children:
        return None
    path = attr.named_children[0]
    last = path.child_by_field_name("name") if path.type == "scoped_identifier" else path
    return last if last is not None and text(last) == "tiled_kernel" else None


def _tile_param(ty: Node) -> tuple[str, Node, str, str] | None:
    """(marker, the `Tile<..>` node, its Triton parameter, its dtype) of `In<Tile<T, D>>`."""
    if ty.type != "generic_type":
        return None
    head = ty.child_by_field_name("type")
    args = ty.child_by_field_name("type_arguments")
    if head is None or args is None or text(head) not in MARKERS:
        return None
    inner = named_children(args)
    if len(inner) != 1 or inner[0].type != "generic_type":
        return None
    tile = inner[0]
    tile_head = tile.child_by_field_name("type")
    tile_args = tile.child_by_field_name("type_arguments")
    if tile_head is None or tile_args is None or text(tile_head).split("::")[-1] != "Tile":
        return None
    targs = named_children(tile_args)
    if len(targs) != 2:
        return None
    return text(head), tile, text(targs[0]), text(targs[1])


def _hardware_param(tparams: list[Node]) -> str | None:
    """The name of the type parameter bounded by `Triton` (`T` of `T: Triton`)."""
    for tp in tparams:
        if tp.type != "type_parameter":
            continue
        bounds = tp.child_by_field_name("bounds")
        if bounds is not None and any(text(b).split("::")[-1] == "Triton" for b in named_children(bounds)):
            return text(tp.child_by_field_name("name") or tp)
    return None


def _functions(root: Node) -> Iterator[tuple[Node, list[Node]]]:
    """Each fn item of the file (in modules too) with the attributes just above it."""
    stack = [root]
    while stack:
        container = stack.pop()
        attrs: list[Node] = []
        for child in container.named_children:
            if child.type == "attribute_item":
                attrs.append(child)
                continue
            if child.type in ("line_comment", "block_comment"):
                continue
            if child.type == "function_item":
                yield child, attrs
            elif child.type == "mod_item":
                mod_body = child.child_by_field_name("body")
                if mod_body is not None:
                    stack.append(mod_body)
            attrs = []


def expand(source: bytes, tree: Tree, smap: SourceMap, features: frozenset[str] | None = None) -> bytes | None:
    """The file with every `#[tiled_kernel]` written as the `#[kernel]` it expands to, or None if it
    has none. The macro's own checks are located errors (E0007). ``features``: what `#[cfg]`
    sees (None: every item); one `#[cfg]` switches off is not there for rustc, nor checked here."""
    found = edits(tree, smap, features=features)
    if not found:
        return None
    return apply(source, found)


def apply(source: bytes, found: list[tuple[int, int, bytes]]) -> bytes:
    """``source`` with the edits (start byte, end byte, new bytes) made."""
    out = bytearray(source)
    for start, end, new in sorted(found, reverse=True):
        out[start:end] = new
    return bytes(out)


def edits(tree: Tree, smap: SourceMap, start: int = 0,
          features: frozenset[str] | None = None) -> list[tuple[int, int, bytes]]:
    """The text edits (start byte, end byte, new bytes) that expand the `#[tiled_kernel]`s of the
    file from byte ``start`` on: each on the lines it replaces (none for one `#[cfg]` switches off)."""
    from rs2triton.transpiler.frontend.items import cfg_holds

    edits: list[tuple[int, int, bytes]] = []  # (start byte, end byte, new bytes)
    for fn, attrs in _functions(tree.root_node):
        marks = [m for m in (_attr_is_tiled(a) for a in attrs) if m is not None]
        if not marks or fn.start_byte < start or (features is not None and not cfg_holds(attrs, features)):
            continue
        edits.append((marks[0].start_byte, marks[0].end_byte, b"kernel"))
        params = fn.child_by_field_name("parameters")
        tparams_node = fn.child_by_field_name("type_parameters")
        tparams = named_children(tparams_node) if tparams_node is not None else []
        consts = {text(tp.child_by_field_name("name") or tp): tp for tp in tparams if tp.type == "const_parameter"}
        # The macro's span for its own errors is the signature, which starts at `fn` (or a qualifier).
        sig = next((c for c in fn.children if c.type in ("fn", "function_modifiers")), fn)
        hw = _hardware_param(tparams)
        if hw is None:
            raise smap.error(sig, "E0007", "#[tiled_kernel] requires a type parameter with a `Triton` bound",
                             "declare it as `T: Triton`")
        ins: list[tuple[str, str, str]] = []  # (name, triton, dtype)
        outs: list[tuple[str, str, str]] = []
        has_n_elements = False
        for p in named_children(params) if params is not None else []:
            if p.type != "parameter":
                continue
            pattern, ty = p.child_by_field_name("pattern"), p.child_by_field_name("type")
            if pattern is None or ty is None:
                continue
            if text(pattern) == "n_elements" and text(ty) == "i32":
                has_n_elements = True
            found = _tile_param(ty)
            if found is None:
                continue
            marker, tile, triton, dtype = found
            if triton != hw:
                continue  # `Tile<U, D>` with U not the kernel's Triton: the macro leaves it (and rustc rejects it)
            edits.append((tile.start_byte, tile.end_byte, f"{triton}::Pointer<{dtype}>".encode()))
            if pattern.type != "identifier":
                raise smap.error(pattern, "E0007", "a `Tile` parameter is a plain name")
            if marker == "In":
                ins.append((written(pattern), triton, dtype))  # (into Rust text: `r#in` as written)
            elif marker == "Out":
                outs.append((written(pattern), triton, dtype))
        if not ins and not outs:
            continue
        if "BLOCK_SIZE" not in consts:
            raise smap.error(sig, "E0007", "an `In<Tile<..>>`/`Out<Tile<..>>` parameter requires this kernel to "
                             "declare `const BLOCK_SIZE: i32`", "teenygrad's #[tiled_kernel] tiles by BLOCK_SIZE")
        if not has_n_elements:
            raise smap.error(sig, "E0007", "an `In<Tile<..>>`/`Out<Tile<..>>` parameter requires this kernel to "
                             "declare an `n_elements: i32` parameter", "the tiles are masked by `n_elements`")
        body = fn.child_by_field_name("body")
        if body is None or not body.children:
            continue
        prelude = [f"let pid = {hw}::program_id(Axis::X);", "let block_start = pid * BLOCK_SIZE;",
                   f"let offsets = {hw}::arange(0, BLOCK_SIZE) + block_start;",
                   "let in_bounds = offsets.lt(n_elements);"]
        prelude += [f"let {n} = Tile::<{t}, {d}> {{ tensor: {t}::load({n}.add_offsets(offsets), Some(in_bounds), "
                    f"None, &[], None, None, None, false), mask: Some(in_bounds) }};" for n, t, d in ins]
        prelude += [f"let {n} = Tile::<{t}, {t}::Pointer<{d}>> {{ tensor: {n}.add_offsets(offsets), "
                    f"mask: Some(in_bounds) }};" for n, t, d in outs]
        brace = body.children[0]
        edits.append((brace.end_byte, brace.end_byte, (" " + " ".join(prelude)).encode()))
    return edits


__all__ = ["expand", "TranspileError"]
