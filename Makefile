# gemmprof: make test and make demo (no GPU needed), make profile and make gpu-check (on a GPU machine).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
GEMMPROF := $(VENV)/bin/gemmprof

# make demo: the full report of the sample run (the one that ships in the package, found through
# it: reports/sample-h200 in a checkout), no GPU needed.
DEMO_RUN ?= $(shell $(PY) -c 'import gemmprof; print(gemmprof.sample_run())')
DEMO_OUT ?= reports/demo
# make profile: one run directory reports/$(RUN_ID) with the bench sweep, the ncu reports and the report.
RUN_ID ?= $(shell date +%Y%m%d-%H%M%S)-profile
RUN_ID := $(RUN_ID)
PROFILE_SIZES ?= 512,1024,2048,4096
PROFILE_SIZE ?= 2048
RUN_DIR := reports/$(RUN_ID)
REPORT_DIR ?= $(RUN_DIR)/report

.PHONY: test venv venv-gpu demo profile gpu-check probes sanitize device-session build resources clean accuracy

test: venv
	$(PY) -m pytest -q tests

venv: $(VENV)/.installed

# EDITABLE_QUIET: setuptools prints a notice on every editable install made through an import
# finder (which the package-dir mappings of pyproject.toml need): information, not a fault to fix.
EDITABLE_QUIET := PYTHONWARNINGS="ignore:Editable installation"

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(EDITABLE_QUIET) $(PY) -m pip install -q -e '.[test]'
	touch $@

# Where kernels run: the GPU extra (CuPy, nvidia-ml-py) on top of the test install.
venv-gpu: $(VENV)/.installed-gpu

$(VENV)/.installed-gpu: $(VENV)/.installed
	$(EDITABLE_QUIET) $(PY) -m pip install -q -e '.[gpu,test]'
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

# The diagnosis graded against what is known: the foreign corpus (the cases it was set on, then the
# held-out ones) and the planted probes.
accuracy: venv
	$(GEMMPROF) accuracy tests/data/foreign-h200/truth.toml
	$(GEMMPROF) accuracy tests/data/foreign-h200/holdout.toml
	$(GEMMPROF) accuracy --probes tests/data/probes-h100 tests/data/foreign-h200/truth.toml tests/data/foreign-h200/holdout.toml

build: venv
	$(VENV)/bin/gemmprof build

# Regenerate the committed ptxas table (kernels/resources.csv) for the project's target.
resources: venv
	$(VENV)/bin/gemmprof build --manifest kernels/probes/probes.toml --arch sm_90 --write-resources

# The one command for the GPU machine: the steps below in order (GPU_CHECK_STEPS, default
# "env tests events sweep bench"), each `make gpu-STEP`; logs and packed runs under $$OUT.
gpu-check:
	bash scripts/gpu_check.sh

# --- GPU machine: the steps of gpu-check, each runnable alone ---------------------------------
# They use the python3 there (CuPy, pandas, ...) with this checkout on PYTHONPATH; run directories
# go under $(RUNS), what comes back (logs, the manifest `dispatch` wrote, report parts) to $(GPU_OUT).
GPU_OUT ?= $(or $(OUT),reports/gpu-check)
RUNS ?= $(GPU_OUT)/runs
SAMPLE ?= $(RUNS)/sample
SWEEP_SIZES ?= 256,777,1000,1023,1024,1536x512x2048,2048
BENCH_SIZES ?= 4096
SAMPLE_SIZES ?= 512,1024,2048,4096
# fast: the rungs under work (a --kernel range or names) and the dispatchers benched beside them
FAST_KERNELS ?= cutlass128x128x8..
FAST_DISPATCHERS ?= best
FAST_SIZES ?= 4096,8192
# variants: the experiments follow the ladder, so a range from the first one takes them all
EXPERIMENTS ?= kernels/experiments/experiments.toml
FIRST_EXPERIMENT ?= bankrot128x128
VARIANT_SECONDS ?= 1.5
GP := python3 -m profiler
# Declared dependencies the GPU machine's Python lacks (tomlkit: the scaffold, `dispatch --write`)
# travel as wheels in .whl/ (carried, git-ignored); each step installs them here first.
DEVICE_SITE ?= /tmp/gemmprof-site
# What gpu-tests collects: the whole GPU suite runs past one device call's 10 minutes, so a call
# may take a part (e.g. GPU_TESTS="tests/gpu/test_shapes.py tests/gpu/test_tf32.py").
GPU_TESTS ?= tests
GPU_STEPS := gpu-env gpu-tests gpu-events gpu-sweep gpu-bench gpu-sample gpu-sample-profile gpu-sample-bench \
	gpu-bare gpu-dispatch gpu-variants gpu-fast gpu-fast-bench gpu-fast-profile gpu-overhead gpu-fixtures \
	gpu-many gpu-sanitize gpu-probes
.PHONY: $(GPU_STEPS)
$(GPU_STEPS): export PYTHONPATH := $(CURDIR):$(DEVICE_SITE)$(if $(PYTHONPATH),:$(PYTHONPATH))
$(GPU_STEPS): export PYTHONUNBUFFERED := 1
$(GPU_STEPS): export COLUMNS := $(or $(LOG_COLUMNS),180)

gpu-env:
	$(GP) env
	$(GP) build --arch sm_90

gpu-tests: gpu-site
	python3 -m pytest -q -m gpu $(GPU_TESTS) -p no:cacheprovider

.PHONY: gpu-site
gpu-site:
	if ls .whl/*.whl >/dev/null 2>&1; then python3 -m pip install -q --no-index --no-deps --no-compile \
		--no-cache-dir --upgrade --target $(DEVICE_SITE) .whl/*.whl; fi

# cuBLAS timed by a plain CUDA program with events, independent of gemmprof's harness
gpu-events:
	mkdir -p build
	nvcc -O3 -o build/cublas_events benchmarks/cublas_events.cu -lcublas
	build/cublas_events 4096

# correctness on odd and rectangular shapes, short timing
gpu-sweep:
	$(GP) bench --sizes $(SWEEP_SIZES) --max-seconds 0.3 --min-reps 5 --out $(RUNS) --run-id sweep

gpu-bench:
	$(GP) bench --sizes $(BENCH_SIZES) --out $(RUNS) --run-id bench

# The sample run (reports/sample-h200 comes from here): every kernel under ncu at 2048, then the
# bench sweep of every rung into the same run (`-k ..`: rungs only; dispatchers are timed after
# `dispatch` derives them). Reports already in $(SAMPLE) are kept.
gpu-sample: gpu-sample-profile gpu-sample-bench

gpu-sample-profile:
	$(GP) profile --kernel all --size 2048 --xz --out $(dir $(SAMPLE)) --run-id $(notdir $(SAMPLE))
	ls -l $(SAMPLE)/ncu
	$(GP) analyze $(SAMPLE)

gpu-sample-bench:
	$(GP) bench -k .. --sizes $(SAMPLE_SIZES) --max-seconds 1.5 --out $(dir $(SAMPLE)) --run-id $(notdir $(SAMPLE))

# bare ncu running the sample run's own ncu commands: what gemmprof adds on top
gpu-bare:
	python3 benchmarks/bare_ncu.py $(SAMPLE)

# derive `best` from the sample sweep, write it into the manifest (a copy comes back), time it
gpu-dispatch: gpu-site
	$(GP) dispatch $(SAMPLE) --write
	mkdir -p $(GPU_OUT) && cp kernels/ladder.toml $(GPU_OUT)/ladder.toml
	$(GP) bench -k best --sizes 512,1024,2048,4096,8192 --out $(RUNS) --run-id best

# the experiment kernels and the rungs they claim to improve on, against cuBLAS
gpu-variants:
	$(GP) bench --manifest $(EXPERIMENTS) -k $(FIRST_EXPERIMENT).. --predecessors --sizes $(FAST_SIZES) \
	    --max-seconds $(VARIANT_SECONDS) --out $(RUNS) --run-id variants

# the rungs under work: benched with their dispatchers, profiled at 4096 (dispatchers are not:
# only the kernels they choose from), analysed and reported
gpu-fast: gpu-fast-bench gpu-fast-profile

gpu-fast-bench:
	$(GP) bench $(addprefix -k ,$(FAST_KERNELS) $(FAST_DISPATCHERS)) --sizes $(FAST_SIZES) --out $(RUNS) --run-id fast

gpu-fast-profile:
	$(GP) profile $(addprefix -k ,$(FAST_KERNELS)) -k cublas --size 4096 --xz --out $(RUNS) --run-id fastprof
	$(GP) analyze $(RUNS)/fastprof
	$(GP) report $(RUNS)/fastprof >/dev/null

# profile --kernel all against bare ncu: cold (compile, first ncu start), bare ncu, then gemmprof
# again; the fair comparison is the second gemmprof run against the bare replay between the two
gpu-overhead:
	$(GP) profile --kernel all --size 2048 --out $(RUNS) --run-id overhead
	python3 benchmarks/bare_ncu.py $(RUNS)/overhead
	$(GP) profile --kernel all --size 2048 --out $(RUNS) --run-id overhead --force
	python3 benchmarks/bare_ncu.py --wall $(RUNS)/overhead

# small real reports and ncu's raw export of each, for tests/data/profile-<gpu>/
gpu-fixtures:
	$(GP) profile -k naive -k smem -k vectorized -k warptile -k cublas --mnk 512 256 128 --xz --out $(RUNS) --run-id fixtures
	mkdir -p build
	for f in $(RUNS)/fixtures/ncu/*.ncu-rep.xz; do \
	    xz -dc "$$f" > build/fixture.ncu-rep && ncu --import build/fixture.ncu-rep --page raw --csv > "$${f%.ncu-rep.xz}.raw.csv" || exit 1; \
	done; rm -f build/fixture.ncu-rep

# a 1,000-launch report for benchmarks/extract_speed.py (scripts/many_launches.sh; knobs MANY_*)
gpu-many:
	OUT=$(GPU_OUT) bash scripts/many_launches.sh

gpu-sanitize:
	OUT=$(GPU_OUT) bash scripts/sanitize.sh

gpu-probes:
	OUT=$(GPU_OUT) bash scripts/probes.sh

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
