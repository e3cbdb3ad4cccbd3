"""Items written by the file's `macro_rules!` (tests/kernels/macros.rs): kernels (and the helpers
beside them) a macro writes are transpiled as any others, invocations inside an expansion (at
item level, and in an `impl` block) are expanded too, and what cannot be is a located warning.
Numerics on the interpreter against torch, compiled for sm_90 and gfx942, and where diagnostics
and the line map point."""

import itertools

import pytest
import torch

import rs2triton
from rs2triton import TranspileError, transpile_source
from rs2triton.transpiler.driver.pipeline import transpile_file
from tests.compile_helper import compile_in_subprocess
from tests.conftest import DEVICE, ROOT, jit_sources
from tests.numerics import assert_matches

SRC = "tests/kernels/macros.rs"
LINES = (ROOT / SRC).read_text().splitlines()
DTYPES = [torch.float32, torch.float16]
N, BLOCK = 50, 16
REFERENCE = {"sigmoid_plus": torch.sigmoid, "exp_plus": torch.exp, "sqrt_plus": torch.sqrt}


@pytest.fixture(scope="module")
def mod():
    return rs2triton.load(SRC)


@pytest.fixture(scope="module")
def result():
    return transpile_file(SRC, launchers=True)


def _x(dtype):
    g = torch.Generator().manual_seed(0)
    return (torch.rand(N, generator=g) * 2 + 0.1).to(dtype).to(DEVICE)


def _line(text: str) -> int:
    return next(i for i, line in enumerate(LINES, 1) if text in line)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kernel", list(REFERENCE))
def test_macro_written_kernels_compute_what_they_say(mod, kernel, dtype):
    x = _x(dtype)
    y = torch.full((N + 6,), 9.0, dtype=dtype, device=DEVICE)
    getattr(mod, kernel)[((N + BLOCK - 1) // BLOCK,)](x, y, N, BLOCK_SIZE=BLOCK)
    xs = x.cpu().float()
    want = (REFERENCE[kernel](xs).to(dtype) + x.cpu()).float()
    tol = {"atol": 5e-3, "rtol": 5e-3} if dtype == torch.float16 else {"atol": 1e-5, "rtol": 1e-5}
    assert_matches("y_ptr", y[:N].float(), want, **tol)
    assert_matches("y_ptr (past n)", y[N:], [9.0] * 6)


def test_their_host_impls_written_through_other_macros(mod, result):
    assert set(result.host) == {"SigmoidPlus", "ExpPlus", "SqrtPlus"}
    op = mod.ExpPlus(BLOCK_SIZE=BLOCK)
    assert op.n_activation_inputs() == 1  # written into the impl by `n_inputs!`
    x = _x(torch.float32)
    assert_matches("exp_plus", op.apply(x, out_shape=x.shape), torch.exp(x) + x, atol=1e-5, rtol=1e-5)


def test_the_kernels_and_their_helpers_are_the_macro_s(result):
    jit = jit_sources(result.text)
    assert list(jit) == ["_upcast_f16", "sigmoid_plus_x", "exp_plus_x", "sqrt_plus_x",
                         "sigmoid_plus", "exp_plus", "sqrt_plus"]
    assert '"""`y = op(x) + x`, one block per program."""' in jit["exp_plus"]  # the macro body's `///`
    assert "return (tl.sqrt(_upcast_f16(x)) + x).to(x.dtype)" in jit["sqrt_plus_x"]


def test_the_line_map_points_into_the_macro_body(result):
    res = result
    lines = res.text.splitlines()
    stores = [g for g, line in enumerate(lines, 1) if line.strip().startswith("tl.store(y_ptr")]
    assert len(stores) == 3 and {res.line_map[g] for g in stores} == {_line("T::store(y_ptr")}
    assert max(res.line_map.values()) <= len(LINES)


KERNEL_MACRO = """use teeny_triton::triton::*;

macro_rules! k {
    ($name:ident, $op:ident) => {
        #[kernel]
        pub fn $name<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>) {
            let x = T::load(x_ptr.add_offsets(T::arange(0, B)), None, None, &[], None, None, None, false);
            let y = x;
            y = T::$op(x);
            T::store(x_ptr.add_offsets(T::arange(0, B)), y, None, &[], None, None);
        }
    };
}

k!(first, exp);
"""


def _error(src: str):
    with pytest.raises(TranspileError) as info:
        transpile_source(src, "kernels/m.rs")
    return info.value.diagnostics


def test_an_error_in_a_macro_written_kernel_is_in_the_macro_body():
    [d] = _error(KERNEL_MACRO)
    assert (d.code, d.line, d.col) == ("E0015", 9, 13) and "immutable variable `y`" in d.message, d.render()
    assert d.source_line == "            y = T::$op(x);"
    assert d.notes == ("in this expansion of `k!` (invoked at kernels/m.rs:15)",)


def test_an_error_in_a_fragment_is_at_the_invocation():
    [d] = _error(KERNEL_MACRO.replace("let y = x;", "let mut y = x;").replace("k!(first, exp);", "k!(first, epx);"))
    assert (d.code, d.line, d.col, d.length) == ("E0003", 15, 11, 3), d.render()
    assert "`T::epx`" in d.message and d.notes


def test_an_expansion_that_is_not_rust_is_a_located_syntax_error():
    """rustc rejects a program whose macro writes invalid Rust: so does rs2triton, where the bad
    token came from (here the macro body), never an internal error."""
    src = """use teeny_triton::triton::*;

pub struct Op;

macro_rules! n_inputs {
    ($n:expr) => {
        impl Op {
            fn n_activation_inputs(&self, x: < usize) -> usize {
                $n
            }
        }
    };
}

n_inputs!(2);

#[kernel]
pub fn k<T: Triton>(x_ptr: T::Pointer<f32>) {}
"""
    [d] = _error(src)
    assert d.code == "E0001" and "this expansion of `n_inputs!` is not valid Rust" in d.message, d.render()
    assert d.line == 8 and "internal" not in d.render()


def test_an_item_invocation_inside_an_impl_block_of_the_file_is_a_located_warning():
    src = (ROOT / SRC).read_text() + """
impl<D: Float + Send + Sync + 'static> SigmoidPlus<D> {
    n_inputs!(2);
}
"""
    res = transpile_source(src, "kernels/m.rs")
    [w] = [w for w in res.warnings if "n_inputs!" in w.message]
    assert (w.code, w.severity, w.line, w.col) == ("W0010", "warning", len(LINES) + 3, 5), w.render()
    assert "inside an `impl` block is not expanded" in w.message


def test_endless_recursion_is_rustc_s_limit_as_a_warning():
    src = (ROOT / SRC).read_text() + "\nmacro_rules! again {\n    () => {\n        again!();\n    };\n}\n\nagain!();\n"
    res = transpile_source(src, "kernels/m.rs")
    [w] = [w for w in res.warnings if "again!" in w.message]
    assert "recursion limit reached while expanding `again!`" in w.message and w.line == len(src.splitlines())


# ---------------------------------------------------------------------------- GPU targets


@pytest.fixture(scope="module")
def compiled():
    reqs = [{"file": SRC, "kernel": k, "target": t, "dtypes": {"D": d}, "consts": {"BLOCK_SIZE": 128}}
            for k in REFERENCE for t in ("cuda:90", "hip:gfx942") for d in ("f32", "f16")]
    return compile_in_subprocess(reqs)


def test_macro_written_kernels_compile_for_sm90_and_gfx942(compiled):
    failures = [f"{r['kernel']} {r['target']} {r['dtypes']}: {r.get('error')}" for r in compiled if not r["ok"]]
    assert not failures, "\n".join(failures)
    assert len(compiled) == 12 and all(r["entry"] for r in compiled)


TILED_MACRO = """use teeny_triton::triton::*;

macro_rules! tiled {
    ($name:ident) => {
        #[tiled_kernel]
        pub fn $name<T: Triton, D: Float, const BLOCK_SIZE: i32>(x: In<Tile<T, D>>, y: Out<Tile<T, D>>, n_elements: i32) {
            let z = x.tensor + x.tensor;
            T::store(y.tensor, z, y.mask, &[], None, None);
        }
    };
}

tiled!(doubled);
"""


def test_a_macro_written_tiled_kernel_is_expanded_and_still_located():
    res = transpile_source(TILED_MACRO, "kernels/t.rs")
    src = jit_sources(res.text)["doubled"]
    assert "    x_tensor = tl.load(x + offsets, mask=in_bounds)\n" in src and "z = x_tensor + x_tensor" in src
    lines = res.text.splitlines()
    z = next(g for g, line in enumerate(lines, 1) if line.strip().startswith("z = "))
    assert res.line_map[z] == 7
    [d] = _error(TILED_MACRO.replace("let z = x.tensor + x.tensor;", "let z = x.tensor + missing;"))
    assert (d.code, d.line, d.col) == ("E0006", 7, 32) and d.notes, d.render()


@pytest.mark.parametrize("path, ending", [(SRC, None), ("kernels_rs/elementwise.rs", None),
                                          (SRC, b"// the last line, with no newline after it"),
                                          (SRC, b"/* no newline after */ const LAST: i32 = 1;")])
def test_the_file_with_its_macro_kernels_appended_parses_as_a_whole_parse_would(path, ending):
    """Appending the kernels a file's macros write, the file is parsed again from the tree of its
    own text (incremental parsing): the tree is the one a parse of the whole text gives, whatever
    the file's last bytes (``ending``, in place of its last newline)."""
    from rs2triton.transpiler.frontend import macros
    from rs2triton.transpiler.frontend.parse import parse, parser
    from rs2triton.transpiler.frontend.source import SourceMap

    source = (ROOT / path).read_bytes()
    if ending is not None:
        source = source.rstrip(b"\n") + b"\n" + ending
    smap = SourceMap(path, source)
    appended = macros.append_macro_kernels(source, parse(source, smap), smap, None)
    assert appended is not None and len(appended[0]) > len(source) + 100
    whole = parser().parse(appended[0])
    assert str(appended[2].root_node) == str(whole.root_node) and not whole.root_node.has_error


@pytest.mark.parametrize("path", [SRC, "kernels_rs/elementwise.rs"])
def test_each_byte_of_an_expansion_is_traced_to_the_byte_of_the_file_it_copies(path):
    """An expansion copies the macro body's text (whole runs of it at once where no metavariable
    is) and the invocation's fragments; each byte of it that came from the file is traced there,
    to the very byte (what diagnostics and the line map rely on), and only a repetition's
    separator comes from nowhere."""
    from rs2triton.transpiler.frontend import macros
    from rs2triton.transpiler.frontend.parse import parse
    from rs2triton.transpiler.frontend.source import SourceMap

    source = (ROOT / path).read_bytes()
    root = parse(source, SourceMap(path, source)).root_node
    defined = macros.file_macros(root)
    expanded = 0
    for inv, _span, _in_impl in macros.item_invocations(root):
        definition = defined.get(macros._macro_name(inv))
        if definition is None:
            continue
        e = macros.expand(definition, inv, source)
        text = macros.Text(e.source, e.origins)
        untraced = [i for i in range(len(e.source)) if not any(a <= i < b for a, b, _ in e.origins)]
        assert all(e.source[i:i + 1] in b", ;" for i in untraced), (inv.text, untraced[:5])
        for i in range(len(e.source)):
            if i not in untraced:
                assert source[text.origin(i)] == e.source[i], (inv.text, i)
        assert all(b1 <= a2 for (_, b1, _), (a2, _, _) in itertools.pairwise(e.origins))  # sorted, disjoint
        expanded += 1
    assert expanded >= 3
