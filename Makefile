# Two entry points for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-triton36 golden docs lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch: the CPU wheel where one is provided (a plain `torch` pulls a multi-GB CUDA build).
	$(BIN)/pip install --quiet "torch==2.13.0" || $(BIN)/pip install --quiet torch
	$(BIN)/pip install --quiet -e ".[run,dev]"
	touch $(STAMP)

## Set up, transpile the bundled kernels_rs/ into build/kernels_py/, run vector_add and check it against torch.
demo: $(STAMP)
	$(BIN)/rs2triton transpile kernels_rs -o build/kernels_py
	@echo "--- kernels_rs/relu.rs became build/kernels_py/relu.py:"
	@cat build/kernels_py/relu.py
	@echo "---"
	$(BIN)/rs2triton run kernels_rs/vector_add.rs vector_add --grid 8 \
		--const BLOCK_SIZE=128 --arg a_ptr=1000 --arg b_ptr=1000 --arg out_ptr=1000 --arg n_elements=1000 \
		--expect "out_ptr=a_ptr + b_ptr"
	$(BIN)/rs2triton run kernels_rs/softmax.rs softmax_forward --grid 37 \
		--const BLOCK_SIZE=128 --arg x_ptr=37x100 --arg y_ptr=37x100 --arg n_rows=37 --arg n_cols=100 --arg stride=100 \
		--expect "y_ptr=torch.softmax(x_ptr, dim=1)"

## The test-suite (numerics under the interpreter, sm_90/gfx942 compilation, goldens, CLI).
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

## The same suite on Triton 3.6 (what the GPU machines run). Its interpreter needs NumPy < 2.3.
VENV36 := .venv-triton36
$(VENV36)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV36)
	$(VENV36)/bin/pip install --quiet --upgrade pip
	$(VENV36)/bin/pip install --quiet "torch==2.13.0" || $(VENV36)/bin/pip install --quiet torch
	$(VENV36)/bin/pip install --quiet -e ".[run,dev]" "triton==3.6.0" "numpy<2.3"
	touch $(VENV36)/.installed

test-triton36: $(VENV36)/.installed
	$(VENV36)/bin/python -m pytest -n 2 -q -p no:cacheprovider -W ignore::DeprecationWarning

## Rewrite the golden files and docs/ops.md after an intended change.
golden: $(STAMP)
	RS2TRITON_UPDATE_GOLDEN=1 $(BIN)/python -m pytest -q tests/test_golden.py tests/test_docs.py

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) $(VENV36) build
