"""Autotuning: Launcher.autotune on the interpreter, [tool.rs2triton.tune] in pyproject.toml, `rs2triton tune`."""

import re
import shutil
import textwrap

import pytest
import torch
import triton
from click.testing import CliRunner

import rs2triton
from rs2triton.cli import main
from tests.conftest import DEVICE, ROOT
from tests.numerics import assert_matches

VADD = ROOT / "kernels_rs" / "vector_add.rs"
CONFIGS = [{"BLOCK_SIZE": 64, "num_warps": 2}, {"BLOCK_SIZE": 256, "num_warps": 4}, {"BLOCK_SIZE": 1024}]


def _grid(meta):
    return (triton.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)


def _vadd_inputs(n=3000):
    a, b = torch.randn(n, device=DEVICE), torch.randn(n, device=DEVICE)
    return a, b, torch.empty_like(a)


def test_autotune_runs_every_config_and_keeps_the_best_per_key():
    mod = rs2triton.load(VADD)
    tuned = mod.VectorAdd.autotune(CONFIGS, key=["n_elements"])
    assert tuned.best_config is None
    a, b, out = _vadd_inputs()
    tuned()[_grid](a, b, out, 3000)
    assert_matches("out_ptr", out, a + b)
    best = tuned.best_config
    assert {k: v for k, v in best.items() if k in ("BLOCK_SIZE",)} in [{"BLOCK_SIZE": c["BLOCK_SIZE"]} for c in CONFIGS]
    out.zero_()
    tuned()[_grid](a_ptr=a, b_ptr=b, out_ptr=out, n_elements=3000)  # cached for this key
    assert_matches("out_ptr", out, a + b)
    assert tuned.autotuner() is tuned.autotuner()


def test_a_tuned_launcher_still_takes_one_fixed_config():
    mod = rs2triton.load(VADD)
    tuned = mod.VectorAdd.autotune(CONFIGS, key=["n_elements"])
    a, b, out = _vadd_inputs(100)
    tuned(BLOCK_SIZE=128, num_warps=8)[(1,)](a, b, out, 100)
    assert_matches("out_ptr", out, a + b)
    assert tuned.best_config is None  # the autotuner was not used


@pytest.mark.parametrize("configs,key,message", [
    ([{"BLOCK_SIZ": 64}], [], "config 0 sets `BLOCK_SIZ`, which is neither a const generic"),
    ([{"BLOCK_SIZE": 2**31}], [], "config 0: `BLOCK_SIZE: i32` must be in i32 range"),
    ([{"BLOCK_SIZE": 64}, {"num_warps": 4}], [], "config 1 sets const generics [] but config 0 sets ['BLOCK_SIZE']"),
    ([{"num_warps": 4}], [], "the configs set no const generic"),
    ([], [], "give at least one config"),
    ([{"BLOCK_SIZE": 64}], ["n_elems"], "key `n_elems` is not a parameter (did you mean `n_elements`?)"),
])
def test_bad_tuning_is_an_error(configs, key, message):
    mod = rs2triton.load(VADD)
    with pytest.raises((TypeError, ValueError)) as info:
        mod.VectorAdd.autotune(configs, key=key)
    assert f"VectorAdd.autotune: {message}" in str(info.value)


def test_tuned_consts_are_all_or_nothing_and_tuned_options_are_the_tuners():
    mod = rs2triton.load(VADD)
    tuned = mod.VectorAdd.autotune(CONFIGS, key=["n_elements"])
    with pytest.raises(TypeError, match="num_warps is chosen by the autotuner"):
        tuned(num_warps=4)
    a, b, out = _vadd_inputs(100)
    with pytest.raises(TypeError, match="num_warps is chosen by the autotuner"):
        tuned()[_grid](a, b, out, 100, num_warps=4)
    matmul = rs2triton.load(ROOT / "kernels_rs" / "matmul.rs").Matmul
    t = matmul.autotune([{"BLOCK_M": 16, "BLOCK_N": 16}], key=["M"])
    with pytest.raises(TypeError, match="missing const generic `BLOCK_K: i32`$"):
        t()
    with pytest.raises(TypeError, match="missing const generic `BLOCK_N: i32`; the tuned ones may be left out"):
        t(BLOCK_M=16, BLOCK_K=16)


def test_triton_configs_are_accepted():
    mod = rs2triton.load(VADD)
    tuned = mod.VectorAdd.autotune([triton.Config({"BLOCK_SIZE": 128}, num_warps=2)], key=[])
    assert tuned.tuning["configs"][0]["BLOCK_SIZE"] == 128 and tuned.tuning["configs"][0]["num_warps"] == 2


# ── pyproject.toml ────────────────────────────────────────────────────────────

def _project(tmp_path, table: str):
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(table))
    (tmp_path / "kernels").mkdir()
    shutil.copy(VADD, tmp_path / "kernels" / "vector_add.rs")
    return tmp_path / "kernels" / "vector_add.rs"


def test_pyproject_tuning_is_emitted_and_used(tmp_path):
    rs = _project(tmp_path, """
        [project]
        name = "demo"

        [tool.rs2triton.tune.vector_add]
        key = ["n_elements"]
        sweep = { BLOCK_SIZE = [128, 512], num_warps = [2, 4] }
    """)
    text = rs2triton.transpile_file(rs).text
    assert "tuning={\n" in text and "'key': ['n_elements']" not in text  # laid out by ruff
    assert '{"BLOCK_SIZE": 512, "num_warps": 4}' in text
    mod = rs2triton.load(rs)
    assert mod.VectorAdd.tuning["configs"] == [{"BLOCK_SIZE": b, "num_warps": w} for b in (128, 512) for w in (2, 4)]
    a, b, out = _vadd_inputs(700)
    mod.VectorAdd()[_grid](a, b, out, 700)
    assert_matches("out_ptr", out, a + b)
    assert mod.VectorAdd.best_config["BLOCK_SIZE"] in (128, 512)


def test_repository_tuning_shows_in_the_golden_module():
    golden = (ROOT / "tests" / "golden" / "vector_add.py").read_text()
    assert "tuning={" in golden and '"key": ["n_elements"]' in golden


@pytest.mark.parametrize("table,line,message", [
    ("[tool.rs2triton.tune.vector_add]\nkey = ['n_elements']\nconfigs = [{ BLOCK = 64 }]\n", 3,
     "config 0 sets `BLOCK`, which is neither a const generic (BLOCK_SIZE: i32) nor a launch option"),
    ("[tool.rs2triton.tune.vector_add]\nkey = ['n']\nconfigs = [{ BLOCK_SIZE = 64 }]\n", 2,
     "key `n` is not a parameter"),
    ("[tool.rs2triton.tune.vector_add]\nconfigs = [{ BLOCK_SIZE = 64 }]\nwarps = [4]\n", 3,
     "unknown key `warps` in the tuning table of `vector_add`"),
    ("[tool]\n\n[tool.rs2triton.tune.vector_add]\nsweep = { BLOCK_SIZE = [64, 1e3] }\n", 4,
     "`BLOCK_SIZE: i32` must be an int, got float 1000.0"),
    ("[tool.rs2triton.tune.vector_add]\nkey = []\n", 1, "needs exactly one of `configs` or `sweep`"),
    ("[tool.rs2triton.tune.vector_add]\nkey = ['n_elements', 'n_elements']\nconfigs = [{ BLOCK_SIZE = 64 }]\n", 2,
     "`n_elements` is listed twice in `key`"),
    ("[tool.rs2triton.tune.vector_add]\nconfigs = [{ BLOCK_SIZE = 64 }, { BLOCK_SIZE = 64 }]\n", 2,
     "the config {'BLOCK_SIZE': 64} is listed twice"),
    ("[tool.rs2triton.tune.vector_add]\nsweep = { BLOCK_SIZE = [16, 32, 64, 128, 256, 512, 1024, 2048], "
     "num_warps = [1, 2, 4, 8, 16, 32], num_stages = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], "
     "num_ctas = [1, 2, 4, 8, 16], maxnreg = [64, 128] }\n", 2, "`sweep` makes 7680 configs; a tuning table may have at most 4096"),
])
def test_an_invalid_table_is_a_located_error(tmp_path, monkeypatch, table, line, message):
    rs = _project(tmp_path, table)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["transpile", "kernels", "-o", "out"])
    assert res.exit_code == 1
    assert res.output.startswith("error[E0013]: ") and message in res.output, res.output
    assert f"--> pyproject.toml:{line}:1" in res.output, res.output
    assert not (tmp_path / "out").exists(), "nothing is written"
    assert rs2triton.transpile_file(rs, launchers=False).text  # --plain ignores tuning


# ── rs2triton tune ────────────────────────────────────────────────────────────

def _tune(*extra):
    return CliRunner().invoke(main, ["tune", *extra], catch_exceptions=False)


def test_tune_runs_every_config_and_reports_failures():
    res = _tune(str(VADD), "vector_add", "--grid", "cdiv(n_elements, BLOCK_SIZE)", "-s", "BLOCK_SIZE=64,100,256",
                "-s", "num_warps=2,4", "-a", "a_ptr=1000", "-a", "b_ptr=1000", "-a", "out_ptr=1000",
                "-a", "n_elements=1000")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    if DEVICE == "cpu":
        assert "timings on the interpreter mean nothing" in res.output
    assert sum("  ok  " in line and line.endswith("same") for line in lines) == 4, res.output
    failed = [line for line in lines if "FAILED" in line]
    assert len(failed) == 2 and all("BLOCK_SIZE=100" in f and "power of 2" in f for f in failed)
    assert "4 of 6 configs ran; all gave the same result" in res.output


def test_tune_fails_when_configs_disagree():
    # A row softmax whose block is narrower than the row reads only part of it: results differ.
    res = _tune("kernels_rs/softmax.rs", "softmax_forward", "--grid", "n_rows", "-s", "BLOCK_SIZE=128,64",
                "-a", "x_ptr=4x100", "-a", "y_ptr=4x100", "-a", "n_rows=4", "-a", "n_cols=100", "-a", "stride=100")
    assert res.exit_code == 1, res.output
    assert re.search(r"BLOCK_SIZE=64 +ok +DIFFERS \(max abs diff", res.output), res.output
    assert "1 gave different results from the first" in res.output


@pytest.mark.parametrize("args,message", [
    (["-s", "BLOCK=64"], "--sweep `BLOCK` is neither a const generic of `vector_add` (BLOCK_SIZE)"),
    (["-s", "BLOCK_SIZE=64", "-c", "BLOCK_SIZE=64"], "`BLOCK_SIZE` is given twice"),
    (["-s", "num_warps=4"], "give every const generic by --const or --sweep; missing BLOCK_SIZE"),
    (["-s", "BLOCK_SIZE"], "--sweep `BLOCK_SIZE` must look like NAME=V1,V2"),
])
def test_tune_request_errors(args, message):
    res = _tune(str(VADD), "vector_add", "--grid", "4", "-a", "a_ptr=10", "-a", "b_ptr=10", "-a", "out_ptr=10",
                "-a", "n_elements=10", *args)
    assert res.exit_code == 1 and message in res.output, res.output
