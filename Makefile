# gemmprof: make test and make demo (no GPU needed), make profile and make gpu-check (on a GPU machine).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
GEMMPROF := $(VENV)/bin/gemmprof

# make demo: the full report of a committed sample run, no GPU needed.
DEMO_RUN ?= reports/sample-h200
DEMO_OUT ?= reports/demo
# make profile: one run directory reports/$(RUN_ID) with the bench sweep, the ncu reports and the report.
RUN_ID ?= $(shell date +%Y%m%d-%H%M%S)-profile
RUN_ID := $(RUN_ID)
PROFILE_SIZES ?= 512,1024,2048,4096
PROFILE_SIZE ?= 2048
RUN_DIR := reports/$(RUN_ID)
REPORT_DIR ?= $(RUN_DIR)/report

.PHONY: test venv venv-gpu demo profile gpu-check probes sanitize device-session build resources clean

test: venv
	$(PY) -m pytest -q tests

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

# Where kernels run: the GPU extra (CuPy, nvidia-ml-py) on top of the test install.
venv-gpu: $(VENV)/.installed-gpu

$(VENV)/.installed-gpu: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[gpu,test]'
	touch $@

# The README's main command on a machine without a GPU: renders the committed sample run.
demo: venv
	$(GEMMPROF) report $(DEMO_RUN) -o $(DEMO_OUT)
	$(GEMMPROF) roofline $(DEMO_RUN) -o $(DEMO_OUT)/roofline.png --ladder $(DEMO_OUT)/ladder.png
	@echo "demo report: $(DEMO_OUT)/index.html"

# The same pipeline on a GPU: bench -> profile -> report, all into reports/$(RUN_ID).
profile: venv-gpu
	$(GEMMPROF) bench --sizes $(PROFILE_SIZES) --run-id $(RUN_ID)
	$(GEMMPROF) profile --kernel all --size $(PROFILE_SIZE) --run-id $(RUN_ID)
	$(GEMMPROF) report $(RUN_DIR) -o $(REPORT_DIR)
	$(GEMMPROF) roofline $(RUN_DIR) -o $(REPORT_DIR)/roofline.png --ladder $(REPORT_DIR)/ladder.png
	@echo "run: $(RUN_DIR)  report: $(REPORT_DIR)/index.html"

build: venv
	$(VENV)/bin/gemmprof build

# Regenerate the committed ptxas table (kernels/resources.csv) for the project's target.
resources: venv
	$(VENV)/bin/gemmprof build --manifest kernels/probes/probes.toml --arch sm_90 --write-resources

# The one command for the GPU machine: uses the python3 there (CuPy, pandas, ...) with this
# checkout on PYTHONPATH; writes logs and the run directory under $$OUT (or reports/gpu-check).
gpu-check:
	bash scripts/gpu_check.sh

# GPU machine: every probe (kernels/probes) profiled at its own shape into one run, packed as
# $$OUT/probes.tgz (for tests/data/probes-<gpu>/).
probes:
	bash scripts/probes.sh

# GPU machine: compute-sanitizer memcheck, racecheck, synccheck, initcheck over every kernel.
sanitize:
	bash scripts/sanitize.sh

# GPU machine, one call: build, the probes' GPU tests, probes, sanitize.
device-session:
	bash scripts/device_session.sh

clean:
	rm -rf $(VENV) build .pytest_cache
