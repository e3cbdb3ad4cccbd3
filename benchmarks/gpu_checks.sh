#!/usr/bin/env bash
# Everything that needs a real GPU, in one go: the whole test-suite with kernels on the
# device (not the interpreter), the demo, and the benchmarks. Results go to ${OUT:-gpu-results}/.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-results}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 RS2TRITON_CACHE_DIR=${RS2TRITON_CACHE_DIR:-/tmp/rs2triton-gpu-cache}
PY=${PYTHON:-python3}
# The device machine has torch and Triton but no network: carry a wheelhouse of the rest,
# made here for its Python (3.12) with
#   pip download -d .whl --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
#       tree-sitter "tree-sitter-rust<0.25" jinja2 click ruff==0.17.6 pytest pytest-xdist pytest-benchmark hypothesis \
#       transformers
# and name .whl in the run's carry list.
if [ -d .whl ]; then
  $PY -m pip install -q --no-index --find-links .whl tree-sitter "tree-sitter-rust<0.25" jinja2 click ruff==0.17.6 \
    pytest pytest-xdist pytest-benchmark hypothesis transformers 2>&1 | tail -2
  $PY -m pip install -q --no-index --no-deps --no-build-isolation -e . 2>&1 | tail -2
fi
{
  nvidia-smi -L 2>/dev/null || rocm-smi 2>/dev/null
  $PY -c "import sys, torch, triton; print('python', sys.version.split()[0], 'torch', torch.__version__, 'triton', triton.__version__, 'gpu', torch.cuda.get_device_name(0))"
} 2>&1 | tee "$OUT/env.txt"
# The whole suite, with in-process kernels on the GPU instead of the interpreter
# (pytest-xdist spreads it over the machine's cores when it is installed).
XDIST=$($PY -c "import xdist" 2>/dev/null && echo "-n 8")
RS2TRITON_TEST_DEVICE=cuda $PY -m pytest -q -p no:cacheprovider $XDIST 2>&1 | tee "$OUT/pytest_gpu.txt"
$PY -m rs2triton run kernels_rs/softmax.rs softmax_forward --grid 37 -c BLOCK_SIZE=128 \
  -a x_ptr=37x100 -a y_ptr=37x100 -a n_rows=37 -a n_cols=100 -a stride=100 --dtype f16 \
  --expect "y_ptr=torch.softmax(x_ptr, dim=1)" 2>&1 | tee "$OUT/demo.txt"
$PY -W ignore benchmarks/bench_kernels.py --json "$OUT/bench.json" 2>&1 | tee "$OUT/bench.txt"
# Static figures: TTGIR ops and PTX instructions, generated vs hand-written, for sm_90.
$PY -W ignore benchmarks/compare_handwritten.py --json "$OUT/compare_sm90.json" 2>&1 | tee "$OUT/compare_sm90.txt"
$PY -W ignore benchmarks/bench_launch.py --gpu 2>&1 | tee "$OUT/bench_launch.txt"
# The torch.compile backend: its own Python per call against backend="eager" (launches stubbed),
# and GPT-2 / Qwen3 trained on the device with every node on kernels_rs' ops (errors vs eager).
$PY -W ignore benchmarks/bench_backend.py 2>&1 | tee "$OUT/bench_backend.txt"
$PY -W ignore benchmarks/models.py --tree none --steps 2 2>&1 | tee "$OUT/models.txt"
# mode="reduce-overhead": a training step with the backend's wrappers in CUDA graphs, against
# the backend without them, eager and Inductor's reduce-overhead.
$PY -W ignore benchmarks/bench_cudagraphs.py 2>&1 | tee "$OUT/bench_cudagraphs.txt"
