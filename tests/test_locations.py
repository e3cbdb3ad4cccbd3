"""Compiled kernels carry their Rust file and lines (runtime/locations.py): read back from what
Triton makes without a GPU — TTIR's `loc(...)`, PTX's `.file`/`.loc`, the cubin's line table
through the `nvdisasm -g` Triton's wheel ships (what ncu and compute-sanitizer read), and the
gfx942 assembly — for modules written by a plain `rs2triton transpile` and imported as any
Python module, on the project's kernels and on one whose helper is inlined."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rs2triton.runtime.locations import decode, encode
from tests.conftest import ROOT

# The probe: import the module a plain `transpile` wrote (no rs2triton.load), compile a kernel
# for a target, and give back its stages and, for NVIDIA, its cubin's line table.
PROBE = r"""
import importlib, json, os, subprocess, sys
from pathlib import Path
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

out, module, kernel, target, signature, consts = sys.argv[1:7]
sys.path.insert(0, out)
mod = importlib.import_module(module)
backend, arch, warp = {"cuda": ("cuda", 90, 32), "hip": ("hip", "gfx942", 64)}[target]
src = ASTSource(fn=getattr(mod, kernel), signature=json.loads(signature), constexprs=json.loads(consts))
c = triton.compile(src, target=GPUTarget(backend, arch, warp))
res = {k: v for k, v in c.asm.items() if isinstance(v, str)}
if "cubin" in c.asm:
    cubin = Path(out) / "k.cubin"
    cubin.write_bytes(c.asm["cubin"])
    nvdisasm = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "nvdisasm"
    res["sass"] = subprocess.run([str(nvdisasm), "-g", str(cubin)], capture_output=True, text=True, check=True).stdout
print(json.dumps(res))
"""


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    """kernels_rs/ transpiled by the command line into a folder, as a user would."""
    folder = tmp_path_factory.mktemp("located")
    subprocess.run([sys.executable, "-m", "rs2triton", "transpile", "kernels_rs", "-o", str(folder / "gen")],
                   cwd=ROOT, check=True, capture_output=True)
    return folder / "gen"


def _compile(out: Path, module: str, kernel: str, target: str, signature: dict, consts: dict) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["TRITON_CACHE_DIR"] = str(out.parent / "triton-cache")
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", PROBE, str(out), module, kernel, target,
                           json.dumps(signature), json.dumps(consts)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)  # (run from the project, whose path the header names)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def _rust_lines(path: str, pattern: str) -> list[int]:
    """The lines of a Rust file (1-based) that match ``pattern``."""
    return [i for i, line in enumerate((ROOT / path).read_text().splitlines(), 1) if re.search(pattern, line)]


def _instruction_lines(text: str, file_line: str, instruction: str) -> set[int]:
    """The source line each ``instruction`` is placed at in an assembly listing whose line markers
    match ``file_line`` (a regex whose group 1 is the line)."""
    found, line = set(), None
    for row in text.splitlines():
        m = re.search(file_line, row)
        if m:
            line = int(m.group(1))
        elif re.search(instruction, row) and line is not None:
            found.add(line)
    return found


def _op_lines(ttir: str, op: str) -> set[int]:
    """The source lines of the operations ``op`` of a TTIR listing (following `#locN` aliases
    and name locations to the file location they wrap)."""
    aliases = dict(re.findall(r"^(#loc\d*) = (loc\(.*\))$", ttir, re.M))

    def line_of(loc: str) -> int | None:
        for _ in range(20):
            m = re.search(r'loc\("[^"]*\.rs":(\d+)', loc)
            if m:
                return int(m.group(1))
            ref = re.search(r"#loc\d*", loc)
            if ref is None or ref.group() not in aliases:
                return None
            loc = aliases[ref.group()]
        return None

    return {line_of(row[row.index(" loc"):]) for row in ttir.splitlines() if f"{op} " in row and " loc" in row}


@given(st.dictionaries(st.integers(1, 5000), st.integers(1, 5000)))
def test_the_line_map_round_trips(mapping):
    assert decode(encode(mapping)) == mapping
    assert set(encode(mapping)) <= set("0123456789:,*;")  # (a plain string of the module: nothing else)


def test_a_module_ends_with_its_line_map(out):
    text = (out / "vector_add.py").read_text()
    call = re.search(r'\nlocate\(\s*globals\(\),\s*"([^"]+)",\s*"([0-9:,*;]+)",?\s*\)\n$', text)
    assert call is not None and call.group(1) == "kernels_rs/vector_add.rs"  # (as the header names it)
    mapping = decode(call.group(2))
    lines = text.splitlines()
    load = next(i for i, row in enumerate(lines, 1) if "a = tl.load(a_ptr + offsets)" in row)
    assert mapping[load] == _rust_lines("kernels_rs/vector_add.rs", r"let a = T::load\(a_ptr")[0]


VADD = {"a_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32"}


def test_ptx_and_the_cubin_line_table_name_the_rust_file_and_lines(out):
    asm = _compile(out, "vector_add", "vector_add", "cuda", VADD, {"BLOCK_SIZE": 128})
    rust = str((ROOT / "kernels_rs" / "vector_add.rs").resolve())
    loads = set(_rust_lines("kernels_rs/vector_add.rs", r"let [ab] = T::load\("))
    stores = set(_rust_lines("kernels_rs/vector_add.rs", r"T::store\("))
    assert f'loc("{rust}":' in asm["ttir"] and ".py" not in "".join(re.findall(r'loc\("[^"]*"', asm["ttir"]))
    # every tt.load and tt.store is at its statement's line
    assert _op_lines(asm["ttir"], "tt.load") == loads and _op_lines(asm["ttir"], "tt.store") == stores
    assert re.findall(r'\.file\s+\d+\s+"([^"]+)"', asm["ptx"]) == [rust]
    # (LLVM may place an unmasked load at the next statement's line, as it would a Python one)
    ptx_loads = _instruction_lines(asm["ptx"], r"^\s*\.loc\s+\d+\s+(\d+)", r"\bld\.global")
    ptx_stores = _instruction_lines(asm["ptx"], r"^\s*\.loc\s+\d+\s+(\d+)", r"\bst\.global")
    assert ptx_loads & loads and ptx_loads <= loads | stores and ptx_stores == stores, (ptx_loads, ptx_stores)
    # the cubin's line table (ncu's source view, compute-sanitizer's reports)
    files = set(re.findall(r'//## File "([^"]+)", line \d+', asm["sass"]))
    assert files == {rust}
    sass_loads = _instruction_lines(asm["sass"], r'//## File "[^"]+", line (\d+)', r"\bLDG\b")
    sass_stores = _instruction_lines(asm["sass"], r'//## File "[^"]+", line (\d+)', r"\bSTG\b")
    assert sass_loads & loads and sass_loads <= loads | stores and sass_stores <= stores, (sass_loads, sass_stores)


def test_amd_assembly_names_the_rust_file_and_lines(out):
    asm = _compile(out, "vector_add", "vector_add", "hip", VADD, {"BLOCK_SIZE": 128})
    rust = (ROOT / "kernels_rs" / "vector_add.rs").resolve()
    assert re.findall(r'\.file\s+\d+\s+"([^"]+)"\s+"([^"]+)"', asm["amdgcn"]) == [(str(rust.parent), rust.name)]
    lines = set(int(n) for n in re.findall(r"^\s*\.loc\s+\d+\s+(\d+)", asm["amdgcn"], re.M)) - {0}
    body = set(range(_rust_lines("kernels_rs/vector_add.rs", r"pub fn vector_add")[0], 70))
    assert lines and lines <= body
    gl = _instruction_lines(asm["amdgcn"], r"^\s*\.loc\s+\d+\s+(\d+)", r"global_load")
    assert gl and gl <= set(_rust_lines("kernels_rs/vector_add.rs", r"let [ab] = T::load\(")) | {0}


def test_an_inlined_helper_carries_its_own_rust_lines(out):
    """layer_norm_rows_forward calls the helper `row_stats`: the loads inlined from it are at the
    helper's `T::load` lines, the kernel's own at the kernel's."""
    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32", "n_cols": "i32", "eps": "fp32"}
    asm = _compile(out, "layernorm", "layer_norm_rows_forward", "cuda", sig, {"BLOCK_N": 64})
    path = "kernels_rs/layernorm.rs"
    helper = _rust_lines(path, r"^fn row_stats")[0]
    kernel = _rust_lines(path, r"^pub fn layer_norm_rows_forward")[0]
    helper_loads = {n for n in _rust_lines(path, r"TT::load\(") if helper < n < kernel}
    kernel_loads = {n for n in _rust_lines(path, r"let [xwb] = T::load\(") if kernel < n < kernel + 30}
    loads = _instruction_lines(asm["ptx"], r"^\s*\.loc\s+\d+\s+(\d+)", r"\bld\.global")
    assert loads & helper_loads and loads & kernel_loads and loads <= helper_loads | kernel_loads, loads


def test_a_plain_module_reports_a_triton_error_at_the_rust_line(tmp_path):
    """A module written by `transpile` (no line comments, not loaded by rs2triton) names the Rust
    line when Triton rejects its kernel: the launcher reads the map the module carries."""
    src = tmp_path / "bad.rs"
    src.write_text("use teeny_triton::triton::*;\n\n#[kernel]\npub fn bad<T: Triton>(x_ptr: T::Pointer<f32>, n: i32) {\n"
                   "    let offs = T::arange(0, n);\n"
                   "    T::store(x_ptr.add_offsets(offs), T::zeros::<f32>(&[4]), None, &[], None, None);\n}\n")
    subprocess.run([sys.executable, "-m", "rs2triton", "transpile", str(src), "-o", str(tmp_path / "gen")],
                   cwd=tmp_path, check=True, capture_output=True)
    code = ("import sys, torch; sys.path.insert(0, 'gen'); import bad\n"
            "try:\n    bad.Bad()[(1,)](torch.zeros(4, device='cuda' if torch.cuda.is_available() else 'cpu'), 4)\n"
            "except Exception as e:\n    print(type(e).__name__, e)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=300)
    assert "bad.rs:5" in proc.stdout and "arange" in proc.stdout, proc.stdout + proc.stderr


def test_a_plain_module_reports_the_descriptor_alignment_at_the_rust_line(tmp_path):
    """A tensor descriptor over rows that are not 16-byte aligned (10 f32 a row): Triton's bare
    assertion becomes an error at the `T::make_tensor_descriptor` line, with what to do."""
    subprocess.run([sys.executable, "-m", "rs2triton", "transpile", str(ROOT / "tests" / "kernels" / "semantics.rs"),
                    "-o", str(tmp_path / "gen"), "-q"], cwd=ROOT, check=True, capture_output=True)
    code = ("import sys, torch; sys.path.insert(0, 'gen'); import semantics as m\n"
            "x, y = torch.zeros(4, 10), torch.zeros(4, 10)\n"
            "try:\n    m.Descriptors(BM=4, BN=16)[(1, 1)](x, y, 4, 10)\nexcept Exception as e:\n    print(e)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRITON_INTERPRET": "1"}
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=300)
    line = _rust_lines("tests/kernels/semantics.rs", r"let xd = T::make_tensor_descriptor")[0]
    assert f"semantics.rs:{line}:" in proc.stdout and "16-byte aligned" in proc.stdout, proc.stdout + proc.stderr
    assert "multiples of 16 bytes" in proc.stdout and "let xd = T::make_tensor_descriptor" in proc.stdout


# ---------------------------------------------------------------------------- show --ir


def _show(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "rs2triton", "show", *args], cwd=ROOT, capture_output=True,
                          text=True, env=env, timeout=600)


def _runs(text: str, comment: str) -> dict[int, list[str]]:
    """{Rust line: the IR lines shown under its header}."""
    runs: dict[int, list[str]] = {}
    current = None
    for row in text.splitlines():
        m = re.match(rf"{re.escape(comment)} vector_add\.rs:(\d+) \| ", row)
        if m:
            current = int(m.group(1))
            runs.setdefault(current, [])
        elif current is not None:
            runs[current].append(row)
    return runs


@pytest.mark.parametrize(("stage", "target", "op", "comment"), [
    ("ttir", "cuda:90", r"tt\.load", "//"), ("ttgir", "cuda:90", r"tt\.load", "//"), ("llir", "cuda:90", r"ld\.global", ";"),
    ("ptx", "cuda:90", r"ld\.global", "//"), ("amdgcn", "hip:gfx942", r"global_load", ";")])
def test_show_ir_puts_each_stage_beside_the_rust(stage, target, op, comment):
    proc = _show("kernels_rs/vector_add.rs", "vector_add", "--ir", stage, "--target", target, "-c", "BLOCK_SIZE=128",
                 "--dtype", "D=f16")
    assert proc.returncode == 0, proc.stderr[-2000:]
    rust = (ROOT / "kernels_rs" / "vector_add.rs").read_text().splitlines()
    runs = _runs(proc.stdout, comment)
    masked = [n for n in _rust_lines("kernels_rs/vector_add.rs", r"let [ab] = T::load\(") if n > 41]
    for line in masked:  # the tail block's loads: their own lines, under their own headers
        assert f"{comment} vector_add.rs:{line} | {rust[line - 1].strip()}" in proc.stdout
        assert any(re.search(op, row) for row in runs[line]), (line, runs[line])
    loads = {line for line, rows in runs.items() if any(re.search(op, row) for row in rows)}
    assert loads <= set(_rust_lines("kernels_rs/vector_add.rs", r"T::(load|store)\(")), loads
    if stage in ("ttir", "llir"):
        assert "f16" in proc.stdout or "half" in proc.stdout  # (--dtype D=f16)


@pytest.mark.parametrize(("args", "message"), [
    (["--ir", "ttir"], "needs a value for `BLOCK_SIZE`: -c BLOCK_SIZE=..."),
    (["--ir", "ptx", "--target", "hip:gfx942", "-c", "BLOCK_SIZE=128"], "--ir ptx is NVIDIA's; the target is hip:gfx942"),
    (["--ir", "sass", "-c", "BLOCK_SIZE=128"], '--ir "sass" is not a stage; one of ttir, ttgir, llir, ptx, amdgcn'),
    (["--ir", "ttir", "-c", "BLOCK=128"], "needs a value for `BLOCK_SIZE`"),
    (["--ir", "ttir", "-c", "BLOCK_SIZE=x"], '-c "BLOCK_SIZE=x": `BLOCK_SIZE: i32` takes an integer'),
])
def test_show_ir_says_what_is_wrong_with_its_arguments(args, message):
    proc = _show("kernels_rs/vector_add.rs", *args)
    assert proc.returncode == 1 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.parametrize(("args", "message"), [
    # a type the parameter's bound does not take: rustc's E0277 (was compiled as an i32 kernel)
    (["--dtype", "D=i32"], "--dtype D=i32: the trait bound `i32: Float` is not satisfied; "
                           "`D: Float` takes f32, f64, f16, bf16"),
    (["--dtype", "D=float32"], '--dtype "D=float32": not a Rust element type; `D: Float` takes f32, f64, f16, bf16'),
    # a name the kernel does not have (was ignored)
    (["--dtype", "E=f16"], '`softplus_forward` has no dtype parameter "E"; '
                           "its generics: D: Float, const BLOCK_SIZE: i32"),
    # a value the const's Rust type cannot hold (was compiled)
    (["-c", "BLOCK_SIZE=4294967296"], "-c BLOCK_SIZE: const generic `BLOCK_SIZE: i32` must be in i32 range "
                                      "[-2147483648, 2147483647], got 4294967296"),
    # what the user typed, as Rust's {:?} shows it (a control character was echoed as it is)
    (["-c", "B\x1b[2J\nerror: forged=1"], '`softplus_forward` has no const generic "B\\u{1b}[2J\\nerror: forged"; '
                                           "its generics: D: Float, const BLOCK_SIZE: i32"),
])
def test_show_ir_checks_its_generics_as_rustc_checks_them(args, message):
    proc = _show("kernels_rs/activations.rs", "softplus_forward", "--ir", "ttir", "-c", "BLOCK_SIZE=128", *args)
    assert proc.returncode == 1 and proc.stderr == f"error: {message}\n", proc.stderr[-3000:]


def test_two_copies_of_a_kernel_each_compile_located_in_their_own_file(tmp_path):
    # The same text in two files: Triton's cache key is the function's text, not its file, so the
    # second copy was served what the first compiled, its IR naming the first file.
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(PYTHONPATH=str(ROOT), TRITON_CACHE_DIR=str(tmp_path / "triton"))
    for copy in ("a", "b"):
        (tmp_path / copy).mkdir()
        (tmp_path / copy / "vector_add.rs").write_text((ROOT / "kernels_rs" / "vector_add.rs").read_text())
    for copy, other in (("a", "b"), ("b", "a")):
        proc = subprocess.run([sys.executable, "-m", "rs2triton", "show", str(tmp_path / copy / "vector_add.rs"),
                               "--ir", "ttir", "-c", "BLOCK_SIZE=128"], cwd=tmp_path, capture_output=True, text=True,
                              env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert f'loc("{tmp_path / copy / "vector_add.rs"}":' in proc.stdout
        assert str(tmp_path / other) not in proc.stdout


# ---------------------------------------------------------------------------- tritonparse


def test_a_tritonparse_trace_shows_the_rust_and_links_each_ir_line_to_it(out, tmp_path):
    """RS2TRITON_TRACE writes tritonparse's trace of each compilation; read by tritonparse's own
    parser, its source pane is the Rust file and its mappings lead from a Rust line to the IR."""
    import gzip

    logs, parsed = tmp_path / "logs", tmp_path / "parsed"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(PYTHONPATH=str(ROOT), RS2TRITON_TRACE=str(logs), TRITON_CACHE_DIR=str(tmp_path / "cache"))
    probe = PROBE.replace("print(json.dumps(res))", "print('{}')")
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", probe, str(out), "vector_add", "vector_add", "cuda",
                           json.dumps(VADD), json.dumps({"BLOCK_SIZE": 128})], cwd=ROOT, capture_output=True,
                          text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = subprocess.run([sys.executable, "-m", "tritonparse", "parse", str(logs), "--out", str(parsed)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [mapped] = parsed.glob("*_mapped.ndjson.gz")
    events = [json.loads(line) for line in gzip.open(mapped, "rt")]
    [compilation] = [e["payload"] for e in events if e.get("event_type") == "compilation"]
    rust = ROOT / "kernels_rs" / "vector_add.rs"
    source = compilation["python_source"]
    assert source["file_path"] == str(rust.resolve()) and source["code"] == rust.read_text()
    ttir = compilation["file_content"][next(k for k in compilation["file_content"] if k.endswith(".ttir"))]
    ttir_lines = ttir.splitlines()
    by_rust = compilation["source_mappings"]["python"]
    for line in _rust_lines("kernels_rs/vector_add.rs", r"let [ab] = T::load\("):
        assert any("tt.load" in ttir_lines[int(n) - 1] for n in by_rust[str(line)]["ttir_lines"]), line
    store = _rust_lines("kernels_rs/vector_add.rs", r"T::store\(")[0]
    assert any("tt.store" in ttir_lines[int(n) - 1] for n in by_rust[str(store)]["ttir_lines"])


@pytest.mark.parametrize("how", ["a file", "no tritonparse"])
def test_a_trace_that_cannot_be_written_is_a_one_line_error(tmp_path, how):
    # (were it a traceback from tritonparse's handler, the command went on and exited 0; without
    # tritonparse, an "internal error")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(PYTHONPATH=str(ROOT), TRITON_CACHE_DIR=str(tmp_path / "triton"))
    trace = tmp_path / "traces"
    if how == "a file":
        trace.write_text("not a folder")
        message = f"error: RS2TRITON_TRACE={trace}: not a folder (a file is in the way)\n"
    else:
        fake = tmp_path / "fake" / "tritonparse"
        fake.mkdir(parents=True)
        (fake / "__init__.py").write_text("raise ImportError(\"No module named 'tritonparse'\")\n")
        env["PYTHONPATH"] = f"{tmp_path / 'fake'}{os.pathsep}{ROOT}"
        message = (f"error: RS2TRITON_TRACE={trace}: writing a trace needs tritonparse, which is not installed: "
                   "pip install tritonparse\n")
    env["RS2TRITON_TRACE"] = str(trace)
    proc = subprocess.run([sys.executable, "-m", "rs2triton", "show", "kernels_rs/vector_add.rs", "--ir", "ttir",
                           "-c", "BLOCK_SIZE=128"], cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 1 and proc.stderr.endswith(message) and proc.stdout == "", proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="planting files as another user needs root (as the CI runs)")
@pytest.mark.parametrize("how", ["another user's", "writable by others", "its parent writable by others",
                                 "unwritable"])
def test_a_trace_folder_follows_the_cache_s_rule(tmp_path, monkeypatch, how):
    # The trace holds the Rust source, and its files are named by pid: in a folder another user
    # may write, they could plant a symlink at the name and have the trace appended to a file of
    # the user's. The folder is checked as the cache's is (rs2triton/trust.py).
    from rs2triton.runtime.locations import TraceError, trace

    parent = tmp_path / "parent"
    folder = parent / "traces"
    folder.mkdir(parents=True, mode=0o700)
    if how == "another user's":
        os.chown(folder, 65534, 65534)
        why = f"{folder} belongs to another user (uid 65534)"
    elif how == "writable by others":
        folder.chmod(0o777)
        why = f"{folder} is writable by other users (mode 777)"
    elif how == "its parent writable by others":
        parent.chmod(0o777)
        why = f"{parent} is writable by other users (mode 777)"
    else:
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == folder else real(p, mode, **kw))
        why = "the folder is not writable"
    with pytest.raises(TraceError) as e:
        trace(folder, origin="RS2TRITON_TRACE=x")
    assert str(e.value).startswith("RS2TRITON_TRACE=x: ") and str(e.value).endswith(why), str(e.value)


def test_trace_files_are_new_private_and_never_written_through_a_symlink(tmp_path):
    # A trace file's name is known to anyone who knows the pid: a symlink planted there, or a
    # file of an earlier process of the same pid, is left alone and the next free name is used;
    # the file is the user's alone (0600: it holds the Rust source).
    victim = tmp_path / "victim"
    victim.write_text("secret\n")
    victim.chmod(0o600)
    traces = tmp_path / "traces"
    code = r"""
import os, sys
from rs2triton.runtime import locations
locations.trace(sys.argv[1])
from tritonparse import structured_logging as s
name = f"{s.DEFAULT_TRACE_FILE_PREFIX}rank_none_pid_{os.getpid()}_host_{s._get_sanitized_hostname()}_.ndjson"
os.symlink(sys.argv[2], os.path.join(sys.argv[1], name))
s.triton_trace_log.info("", extra={"metadata": {"event_type": "probe"}, "payload": None})
"""
    proc = subprocess.run([sys.executable, "-c", code, str(traces), str(victim)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert victim.read_text() == "secret\n"
    [written] = [p for p in traces.iterdir() if not p.is_symlink()]
    assert written.name.endswith("_1.ndjson") and '"event_type":"probe"' in written.read_text()
    assert (written.stat().st_mode & 0o777, traces.stat().st_mode & 0o777) == (0o600, 0o700)
