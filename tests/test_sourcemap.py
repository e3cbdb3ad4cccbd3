"""Triton's errors in generated code are reported at the Rust line they came from."""

import ast

from click.testing import CliRunner

from rs2triton import transpile_source
from rs2triton.cli import main
from tests.compile_helper import compile_in_subprocess

REJECTED = """/// Triton needs a compile-time bound for arange.
#[kernel]
pub fn k<T: Triton>(x_ptr: T::Pointer<f32>, n: i32) {
    let pid = T::program_id(Axis::X);
    // a runtime bound
    let offs = T::arange(0, n);
    T::store(x_ptr.add_offsets(offs), T::zeros::<f32>(&[4]), None, &[], None, None);
}
"""


def test_every_generated_statement_maps_to_its_rust_line():
    res = transpile_source(REJECTED, "rejected.rs")
    lines = res.text.splitlines()
    by_text = {lines[i - 1].strip(): rust for i, rust in res.line_map.items()}
    assert by_text["pid = tl.program_id(0)"] == 4
    assert by_text["offs = tl.arange(0, n)"] == 6
    assert by_text["tl.store(x_ptr + offs, tl.zeros([4], dtype=tl.float32))"] == 7
    assert by_text["def k(x_ptr, n):"] == 3
    tree = ast.parse(res.text)
    located = tree.body[-1]  # the module's last statement carries the map, and no Rust line of its own
    assert isinstance(located, ast.Expr) and located.value.func.id == "locate"
    for node in ast.walk(tree):  # every statement of the kernel body is mapped
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.Import, ast.ImportFrom)) and node is not located:
            assert node.lineno in res.line_map, lines[node.lineno - 1]


def test_run_reports_a_triton_error_at_the_rust_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rejected.rs").write_text(REJECTED)
    res = CliRunner().invoke(main, ["run", "rejected.rs", "k", "--grid", "1", "-a", "x_ptr=4", "-a", "n=4"])
    assert res.exit_code == 1
    assert "error[E0011]: Triton rejected this kernel" in res.output and "constexpr" in res.output
    assert "--> rejected.rs:6:5" in res.output and "let offs = T::arange(0, n);" in res.output
    assert "bounds must be compile-time values" in res.output
    assert "Traceback" not in res.output


def test_compile_errors_carry_the_rust_line(tmp_path):
    path = tmp_path / "rejected.rs"
    path.write_text(REJECTED)
    [res] = compile_in_subprocess([{"file": str(path), "kernel": "k", "target": "cuda:90", "dtypes": {},
                                    "consts": {}}])
    assert not res["ok"]
    assert res["rust_line"] == 6, res
    assert "rejected.rs:6:5" in res["diagnostic"]


def test_a_runtime_last_descriptor_stride_gets_a_dsl_hint(tmp_path):
    path = tmp_path / "desc.rs"
    path.write_text("""#[kernel]
pub fn d<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>, n: i32, s: i32) {
    let desc = T::make_tensor_descriptor(x_ptr, &[n, n], &[n, s], &[B, B], None);
    let t = T::load_tensor_descriptor(desc, &[0, 0]);
    T::store_tensor_descriptor(desc, &[0, 0], t);
}
""")
    [res] = compile_in_subprocess([{"file": str(path), "kernel": "d", "target": "cuda:90", "dtypes": {},
                                    "consts": {"B": 16}}])
    assert not res["ok"] and res["rust_line"] == 3
    assert "last stride must be the compile-time constant 1" in res["diagnostic"]


def test_parameter_attributes_are_ignored():
    res = transpile_source("#[kernel]\npub fn k<T: Triton>(#[allow(unused)] x: T::Pointer<f32>, n: i32) {}\n", "a.rs")
    assert "def k(x, n):" in res.text
