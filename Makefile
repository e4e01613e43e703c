# gemmprof: make test (no GPU needed), make gpu-check (on a GPU machine: build, GPU tests, bench).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: test venv gpu-check build resources clean

test: venv
	$(PY) -m pytest -q tests

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

build: venv
	$(VENV)/bin/gemmprof build

# Regenerate the committed ptxas table (kernels/resources.csv) for the project's target.
resources: venv
	$(VENV)/bin/gemmprof build --arch sm_90 --write-resources

# The one command for the GPU machine: uses the python3 there (CuPy, pandas, ...) with this
# checkout on PYTHONPATH; writes logs and the run directory under $$OUT (or reports/gpu-check).
gpu-check:
	bash scripts/gpu_check.sh

clean:
	rm -rf $(VENV) build .pytest_cache
