# gemmprof: make test and make demo (no GPU needed), make profile and the gpu-* recipes (on a GPU machine).
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
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

.PHONY: test venv venv-gpu demo profile gpu-check device-wheels build resources clean accuracy fixtures pack-fixtures

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

# The captured runs of tests/data: unpacked in place from tests/data/captures.tar.xz (the tests do
# it themselves), and the archive packed again after a capture is added (tests/data/README.md).
fixtures:
	$(PYTHON) tests/helpers/captures.py unpack

pack-fixtures:
	$(PYTHON) tests/helpers/captures.py pack

# The diagnosis graded against what is known: the foreign corpus (the cases it was set on, then the
# held-out ones), gemmprof's own captures of kernels it did not write (cuBLAS) and the planted probes.
accuracy: venv fixtures
	$(GEMMPROF) accuracy tests/data/foreign-h200/truth.toml
	$(GEMMPROF) accuracy tests/data/foreign-h200/holdout.toml
	$(GEMMPROF) accuracy tests/data/foreign-h200/reference.toml
	$(GEMMPROF) accuracy --probes tests/data/probes-h100 tests/data/foreign-h200/truth.toml tests/data/foreign-h200/holdout.toml \
		tests/data/foreign-h200/reference.toml

build: venv
	$(VENV)/bin/gemmprof build

# Regenerate the committed ptxas table (kernels/resources.csv) for the project's target.
resources: venv
	$(VENV)/bin/gemmprof build --manifest kernels/probes/probes.toml --arch sm_90 --write-resources

# --- GPU machine: the device recipes ----------------------------------------------------------
# Each `make gpu-NAME` is one named recipe that finishes within ten minutes on one GPU (the time
# beside it is measured or estimated from its runs in benchmarks/results). They call gemmprof,
# whose outputs hold the summaries: bench prints % of cuBLAS per row and writes suite.csv (each
# kernel's geometric mean and minimum over a suite), report writes summary.md and diagnosis.json,
# analyze prints one line per launch, compare prints what moved between two runs. They use the
# python3 there (CuPy, pandas, ...) with this checkout on PYTHONPATH; run directories go under
# $(RUNS), what comes back (logs, packed runs, the manifest `dispatch` wrote) to $(GPU_OUT).
#
# `make gpu-check` runs the recipes GPU_CHECK_STEPS names (default "env tests events", about 6 min;
# "sweep bench" is another call), in order, into one log, $(GPU_OUT)/gpu-check.log, and packs their
# run directories as $(GPU_OUT)/gpu-check-runs.tar.xz; e.g. GPU_CHECK_STEPS="suite" make gpu-check.
GPU_OUT ?= $(or $(OUT),reports/gpu-check)
RUNS ?= $(GPU_OUT)/runs
GPU_CHECK_STEPS ?= env tests events
GP := python3 -m profiler
# gpu-check's own make, named through a variable so that `make -n gpu-check` only prints its steps
SUBMAKE = $(MAKE) --no-print-directory -k
# Declared dependencies the GPU machine's Python lacks (tomlkit: the scaffold, `dispatch --write`;
# dask and distributed: --gpus) travel as wheels in .whl/ (`make device-wheels` here, carried,
# git-ignored); gpu-site installs them into a site of its own there.
DEVICE_SITE ?= /tmp/gemmprof-site
PROBES_MANIFEST := kernels/probes/probes.toml
GPU_STEPS := gpu-env gpu-tests gpu-events gpu-sweep gpu-bench gpu-sample-profile gpu-sample-bench gpu-bare \
	gpu-dispatch gpu-variants gpu-fast gpu-fast-bench gpu-fast-profile gpu-suite gpu-overhead gpu-fixtures \
	gpu-corpus gpu-program gpu-timelines gpu-probes gpu-many gpu-sanitize gpu-notebook gpu-scale gpu-site
.PHONY: $(GPU_STEPS)
$(GPU_STEPS): export PYTHONPATH := $(CURDIR):$(DEVICE_SITE)$(if $(PYTHONPATH),:$(PYTHONPATH))
$(GPU_STEPS): export PYTHONUNBUFFERED := 1
$(GPU_STEPS): export COLUMNS := $(or $(LOG_COLUMNS),180)

gpu-check:
	mkdir -p $(GPU_OUT)
	work=$$(mktemp -d); \
	{ status=0; for s in $(GPU_CHECK_STEPS); do echo; echo "=== $$s ($$(date +%T))"; \
	    GEMMPROF_CACHE_DIR=$$work/cache $(SUBMAKE) gpu-$$s RUNS=$$work/runs || status=1; done; \
	  if [ -d $$work/runs ]; then tar -cf - -C $$work/runs --exclude=extract . | xz -T0 -6 > $(GPU_OUT)/gpu-check-runs.tar.xz; fi; \
	  echo "gpu-check finished (status $$status)"; exit $$status; } 2>&1 | tee $(GPU_OUT)/gpu-check.log

# Here, not on the device (which reaches no package index): the wheels gpu-site installs there,
# gemmprof's own among them (the notebook imports `gemmprof` as a user's install does), and
# ncu-report from PyPI, which a user's install has (without it, reports are read with the copy
# bundled with ncu, in worker processes of their own).
DASK_VERSION ?= 2026.8.0
NOTEBOOK_WHEELS ?= nbclient nbformat jupyter_client jupyter_core ipykernel ipython ipython_pygments_lexers traitlets \
	pyzmq comm asttokens executing pure_eval stack_data parso pexpect ptyprocess prompt_toolkit wcwidth \
	matplotlib_inline nest_asyncio2 platformdirs fastjsonschema jsonschema jsonschema_specifications referencing rpds_py
device-wheels:
	rm -rf .whl && mkdir -p .whl
	$(PYTHON) -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
	    --platform manylinux_2_28_x86_64 --platform manylinux_2_26_x86_64 --platform manylinux_2_25_x86_64 \
	    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d .whl \
	    ncu-report tomlkit "dask==$(DASK_VERSION)" \
	    "distributed==$(DASK_VERSION)" locket partd tblib tornado zict $(NOTEBOOK_WHEELS)
	$(PYTHON) -m pip wheel -q --no-deps -w .whl .
	ls -l .whl

gpu-site:
	if ls .whl/*.whl >/dev/null 2>&1; then python3 -m pip install -q --no-index --no-deps --no-compile \
		--no-cache-dir --upgrade --target $(DEVICE_SITE) .whl/*.whl; fi

# the environment and every kernel compiled (ptxas table; seconds with a warm cache, ~40 s cold)
gpu-env:
	$(GP) env
	$(GP) build --arch sm_90

# The GPU tests (marker gpu) of GPU_TESTS. The whole GPU suite runs past one call, so a call takes a
# part: the default, the ladder's tests (75; 45 of them took 200 s on an H200), or
# tests/gpu/test_shapes.py, or tests/gpu/test_fp16.py (180 s), or "tests/gpu/test_tf32.py
# tests/gpu/test_probes.py tests/gpu/test_program.py tests/measure" (120 s); GPU_TESTS_K narrows a
# part with a pytest -k expression.
GPU_TESTS ?= tests/gpu/test_ladder.py
GPU_TESTS_K ?=
gpu-tests: gpu-site
	python3 -m pytest -q -m gpu $(GPU_TESTS) $(if $(GPU_TESTS_K),-k "$(GPU_TESTS_K)") -p no:cacheprovider

# cuBLAS timed by a plain CUDA program with events, independent of gemmprof's harness
gpu-events:
	mkdir -p build
	nvcc -O3 -o build/cublas_events benchmarks/cublas_events.cu -lcublas
	build/cublas_events 4096

# correctness of every kernel on odd and rectangular shapes, short timing (about 0.9 s a row: 6 min)
SWEEP_SIZES ?= 256,777,1000,1023,1024,1536x512x2048,2048
gpu-sweep:
	$(GP) bench --sizes $(SWEEP_SIZES) --max-seconds 0.3 --min-reps 5 --out $(RUNS) --run-id sweep

# every kernel at 4096^3 against cuBLAS (about 3 min)
BENCH_SIZES ?= 4096
gpu-bench:
	$(GP) bench --sizes $(BENCH_SIZES) --out $(RUNS) --run-id bench

# The sample run (reports/sample-h200 comes from here), in two calls: every kernel under ncu at
# 2048 (457 s for 54 kernels on an H200), then the bench sweep of every rung into the same run
# (`-k ..`: rungs only; dispatchers are timed after `dispatch` derives them). Reports already in
# $(SAMPLE) are kept.
SAMPLE ?= $(RUNS)/sample
SAMPLE_SIZES ?= 512,1024,2048,4096
gpu-sample-profile:
	$(GP) profile --kernel all --size 2048 --xz --out $(dir $(SAMPLE)) --run-id $(notdir $(SAMPLE))
	$(GP) analyze $(SAMPLE)

# gpu-sample-bench: 55 rungs and four cuBLAS rows at four sizes, about six minutes (estimated: 0.8 s
# of timing a row in the sample's bench, 0.6 s a row besides in gpu-sweep's 390 s for 427 rows)
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
EXPERIMENTS ?= kernels/experiments/experiments.toml
FIRST_EXPERIMENT ?= splitk64x32x8t4
VARIANT_SECONDS ?= 1.5
gpu-variants:
	$(GP) bench --manifest $(EXPERIMENTS) -k $(FIRST_EXPERIMENT).. --predecessors --sizes $(FAST_SIZES) \
	    --max-seconds $(VARIANT_SECONDS) --out $(RUNS) --run-id variants

# The rungs under work (a --kernel range or names), benched with their dispatchers, then profiled
# beside their tier's cuBLAS at one shape (dispatchers are not: only the kernels they choose
# from), analysed and reported: what each rung fixed, from the counters. FAST_TIER picks the
# tier's cuBLAS as the yardstick (fp16: GemmEx; fp32-tc: strict SGEMM, FAST_TF32 as context),
# FAST_MNK the profiled shape; e.g. the FP16 staging rungs:
#   make gpu-fast FAST_TIER=fp16 FAST_KERNELS="wgmma_staged wgmma_staged128" FAST_DISPATCHERS=best-fp16 \
#       FAST_SIZES=1023x1023x1023,2500x2500x2500,4095x4095x4095 FAST_MNK="4095 4095 4095"
# and a rung beside its predecessor at the shape it was made for:
#   make gpu-fast-profile FAST_KERNELS="splitk64x64x8rs splitk64x64x8" FAST_MNK="1023 1023 1023"
FAST_KERNELS ?= cutlass128x128x8..wgmma
FAST_DISPATCHERS ?= best
FAST_SIZES ?= 4096,8192
FAST_TIER ?=
FAST_MNK ?= 4096 4096 4096
gpu-fast: gpu-fast-bench gpu-fast-profile

gpu-fast-bench:
	$(GP) bench $(addprefix --tier ,$(FAST_TIER)) $(addprefix -k ,$(FAST_KERNELS) $(FAST_DISPATCHERS)) --sizes $(FAST_SIZES) \
	    --out $(RUNS) --run-id fast

gpu-fast-profile:
	$(GP) profile $(addprefix --tier ,$(FAST_TIER)) $(addprefix -k ,$(FAST_KERNELS)) -k cublas --mnk $(FAST_MNK) --xz \
	    --out $(RUNS) --run-id fastprof
	$(GP) analyze $(RUNS)/fastprof
	$(GP) report $(RUNS)/fastprof -o $(RUNS)/fastprof/report
	cat $(RUNS)/fastprof/report/summary.md

# A dispatcher re-derived over a shape suite (about 6 min on an H100): SUITE_STEPS of
#   sweep     its candidates over the suite, each row paired with the tier's cuBLAS (suite.csv:
#             each kernel's geometric mean and minimum)
#   dispatch  the rules derived from that sweep written into kernels/ladder.toml (a copy comes back)
#   best      the dispatcher over the same suite
# TIER=fp16 does best-fp16; `make gpu-suite SUITE=unseen SUITE_STEPS=best` times the committed
# rules on shapes they never saw.
TIER ?= fp32
SUITE ?= default
SUITE_STEPS ?= sweep dispatch best
FP32_CANDIDATES ?= texld128x128x8 ragged128x256x8 splitk64x64x8 splitk64x64x8t4 splitk128x256x8rs splitk64x64x8rs \
	splitk256x128x8rs splitk256x64x8rs streamk128x128x8 streamk128x256x8 tailsk128x256x8 skinny32 tall32 best
FP16_CANDIDATES ?= wgmma_tmastore wgmma_tmastore_deep wgmma_persist128 wgmma_splitk128 wgmma_tailsplit128 \
	wgmma_staged wgmma_staged128 skinny
SUITE_TIMING ?= --max-seconds 0.25 --min-reps 5 --warmup-seconds 0.05
# SUITE_GPUS=all fans the sweep out over every GPU (gemmprof[scale]); SUITE_SWEEP_S bounds it
SUITE_GPUS ?=
SUITE_SWEEP_S ?= 330
DISPATCHER = $(if $(filter fp16,$(TIER)),best-fp16,best)
SUITE_TOLERANCE ?= $(if $(filter fp16,$(TIER)),0.03,0.02)
gpu-suite: gpu-site
	$(if $(filter sweep,$(SUITE_STEPS)),timeout $(SUITE_SWEEP_S) $(GP) bench --suite $(SUITE) --tier $(TIER) \
	    $(addprefix -k ,$(if $(filter fp16,$(TIER)),$(FP16_CANDIDATES),$(FP32_CANDIDATES))) --no-cublas $(SUITE_TIMING) \
	    $(addprefix --gpus ,$(SUITE_GPUS)) --out $(RUNS) --run-id $(TIER)-$(SUITE)-sweep)
	$(if $(filter dispatch,$(SUITE_STEPS)),$(GP) dispatch $(RUNS)/$(TIER)-$(SUITE)-sweep --name $(DISPATCHER) --tier $(TIER) \
	    --tolerance $(SUITE_TOLERANCE) --write && mkdir -p $(GPU_OUT) && cp kernels/ladder.toml $(GPU_OUT)/ladder.toml)
	$(if $(filter best,$(SUITE_STEPS)),timeout 150 $(GP) bench --suite $(SUITE) --tier $(TIER) -k $(DISPATCHER) --no-cublas \
	    $(SUITE_TIMING) --out $(RUNS) --run-id $(TIER)-$(SUITE)-$(DISPATCHER))

# What `gemmprof profile` of one kernel costs beyond ncu: OVERHEAD_PAIRS pairs, their order
# alternating (about 3 min for eight), and where the rest of the time went
OVERHEAD_PAIRS ?= 8
gpu-overhead:
	python3 benchmarks/profile_overhead.py vectorized 2048 $(OVERHEAD_PAIRS)

# Test fixtures, each packed for tests/data/ (tests/data/README.md says which, and how a capture
# joins tests/data/captures.tar.xz):
# small real reports and ncu's raw export of each, the exports packed in one raw.csv.tar.xz (profile-<gpu>)
gpu-fixtures:
	$(GP) profile -k naive -k smem -k vectorized -k warptile -k cublas --mnk 512 256 128 --xz --out $(RUNS) --run-id fixtures
	rm -rf build/raw && mkdir -p build/raw
	for f in $(RUNS)/fixtures/ncu/*.ncu-rep.xz; do \
	    name=$$(basename "$${f%.ncu-rep.xz}"); \
	    xz -dc "$$f" > build/fixture.ncu-rep && ncu --import build/fixture.ncu-rep --page raw --csv > "build/raw/$$name.raw.csv" || exit 1; \
	done; rm -f build/fixture.ncu-rep
	tar -C build/raw --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 --format=ustar -cf - $$(ls build/raw) | xz -9e > $(RUNS)/fixtures/ncu/raw.csv.tar.xz

# the foreign corpus (tests/programs/corpus/): each group of cases in a run of its own, and one
# plain `ncu --set full` report of the smem case (CORPUS_PLAIN=0: none), packed as foreign.tgz
CORPUS_GROUPS ?= torch cuda triton
CORPUS_PLAIN ?= 1
gpu-corpus:
	for g in $(CORPUS_GROUPS); do $(GP) profile --nvtx-include corpus/ --xz --out $(RUNS)/foreign --run-id $$g \
	    -- python3 tests/programs/corpus/corpus.py --group $$g || exit 1; done
	$(if $(filter 1,$(CORPUS_PLAIN)),mkdir -p $(RUNS)/foreign/plain && ncu --set full --clock-control none --import-source yes \
	    --nvtx --nvtx-include 'corpus/smem/' -f -o $(RUNS)/foreign/plain/smem python3 tests/programs/corpus/corpus.py smem \
	    && xz -T0 -6 -f $(RUNS)/foreign/plain/smem.ncu-rep)
	for g in $(CORPUS_GROUPS); do $(GP) analyze $(RUNS)/foreign/$$g || exit 1; done
	mkdir -p $(GPU_OUT) && tar -czf $(GPU_OUT)/foreign.tgz -C $(RUNS) --exclude=extract --exclude=report foreign

# a program that is not gemmprof (a CuPy matmul and a RawKernel of its own), packed as program.tgz
PROGRAM_SHAPE ?= 512 512 512
gpu-program:
	$(GP) profile --nvtx-include app/ --xz --out $(RUNS) --run-id program -- python3 tests/programs/cupy_and_own_kernel.py $(PROGRAM_SHAPE)
	$(GP) analyze $(RUNS)/program
	python3 -m pytest -q -p no:cacheprovider tests/gpu/test_program.py
	mkdir -p $(GPU_OUT) && tar -czf $(GPU_OUT)/program.tgz -C $(RUNS) --exclude=extract --exclude=report program

# kernels whose shape over time is known, with --timeline: stream-K's fix-up, a tail wave, an
# epilogue holding most of the time; packed as timelines.tgz
gpu-timelines:
	$(GP) profile --timeline --xz --out $(RUNS) --run-id timelines -k streamk128x256x8 --size 4096
	$(GP) profile --timeline --xz --out $(RUNS) --run-id timelines --manifest $(PROBES_MANIFEST) -k probe-tail --mnk 896 2432 4096
	$(GP) profile --timeline --xz --out $(RUNS) --run-id timelines --manifest $(PROBES_MANIFEST) -k probe-epilogue --mnk 4096 4096 256
	$(GP) report $(RUNS)/timelines --manifest $(PROBES_MANIFEST) -o $(RUNS)/timelines/report
	mkdir -p $(GPU_OUT) && tar -czf $(GPU_OUT)/timelines.tgz -C $(RUNS) --exclude=extract --exclude=report timelines

# Every probe (kernels/probes/probes.toml; PROBES: some of them) profiled at its own probe_shape
# into one run, cuBLAS at 2048 beside them, then analyze and report (summary.md: each probe's
# verdict), packed as probes.tgz (about 3 min)
PROBES ?=
gpu-probes:
	status=0; while read -r name M N K; do \
	    [ -z "$(PROBES)" ] || [[ " $(PROBES) " == *" $$name "* ]] || continue; \
	    $(GP) profile --manifest $(PROBES_MANIFEST) -k $$name --mnk $$M $$N $$K --xz --out $(RUNS) --run-id probes || status=1; \
	done < <(awk '/^name = /{n=$$3} /^probe_shape = /{print n, $$3, $$4, $$5}' $(PROBES_MANIFEST) | tr -d '",[]'); exit $$status
	$(GP) profile -k cublas --size 2048 --xz --out $(RUNS) --run-id probes
	$(GP) analyze $(RUNS)/probes
	$(GP) report --manifest $(PROBES_MANIFEST) $(RUNS)/probes -o $(RUNS)/probes/report
	cat $(RUNS)/probes/report/summary.md
	mkdir -p $(GPU_OUT) && tar -czf $(GPU_OUT)/probes.tgz -C $(RUNS) --exclude=extract probes

# A 1,000-launch report for benchmarks/extract_speed.py: kernel replay of a plain driver-API program
# running the project's cubins (benchmarks/many_launches.cu), the sections the kernels, rules and
# source tables read, no cache flushes (460 s for 1,000 launches on the H200). The report (126 MB)
# comes back as xz parts of at most 15 MiB: cat them.
MANY_NAME ?= many
MANY_SIZE ?= 64
MANY_KERNELS ?= naive coalesced smem
MANY_SECTIONS ?= --section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats --section SourceCounters
MANY_LAUNCHES ?= 1000
MANY_TIMEOUT ?= 560
gpu-many:
	mkdir -p build $(GPU_OUT)
	nvcc -O2 -o build/many_launches benchmarks/many_launches.cu -lcuda
	timeout $(MANY_TIMEOUT) ncu --cache-control none $(MANY_SECTIONS) --import-source yes --clock-control none \
	    -k regex:sgemm_ -f -o build/$(MANY_NAME) build/many_launches $(MANY_LAUNCHES) \
	    $$(python3 benchmarks/many_launches.py --args $(MANY_SIZE) $(MANY_KERNELS)) | { grep -v "^==PROF== Profiling" || true; }
	xz -T0 -6 -c build/$(MANY_NAME).ncu-rep | split -b 15M - $(GPU_OUT)/$(MANY_NAME).ncu-rep.xz.part-

# compute-sanitizer (SANITIZE_TOOLS) over every ladder kernel and probe (SANITIZE_KERNELS: some),
# each launched directly by profiler.measure.launch_once (an odd and an even small shape in its
# contract, no timing harness); each tool's ERROR SUMMARY in $(GPU_OUT)/sanitize.log
SANITIZE_TOOLS ?= memcheck racecheck synccheck initcheck
SANITIZE_TIMEOUT ?= 120
SANITIZE_KERNELS ?=
COMPUTE_SANITIZER ?= $(or $(shell command -v compute-sanitizer),/usr/local/cuda/bin/compute-sanitizer)
gpu-sanitize: export GEMMPROF_MANIFEST := $(CURDIR)/$(PROBES_MANIFEST)
gpu-sanitize:
	mkdir -p $(GPU_OUT)
	{ status=0; $(GP) build $(addprefix -k ,$(SANITIZE_KERNELS)) > /dev/null || status=1; \
	  for tool in $(SANITIZE_TOOLS); do echo; echo "=== compute-sanitizer --tool $$tool ($$(date +%T))"; \
	      timeout $(SANITIZE_TIMEOUT) $(COMPUTE_SANITIZER) --tool $$tool --error-exitcode 9 \
	          python3 -m profiler.measure.launch_once $(addprefix -k ,$(SANITIZE_KERNELS)) || status=1; done; \
	  exit $$status; } 2>&1 | tee $(GPU_OUT)/sanitize.log

# the notebook API where users run it: tests/programs/profile_function.ipynb executed in a Jupyter
# kernel (34 s on an H200), with gemmprof, nbclient and ipykernel from the wheels gpu-site installs
gpu-notebook: gpu-site
	mkdir -p $(GPU_OUT)
	python3 scripts/run_notebook.py tests/programs/profile_function.ipynb $(GPU_OUT)/profile_function.executed.ipynb

# Several GPUs of one host (`make device-wheels` here first, carry .whl): the same commands on GPU 0
# alone and with --gpus all; each prints its wall time and run.json records each GPU's busy time,
# and compare sets the two bench runs' numbers side by side (a profile run has no bench table to
# compare). SCALE_KERNELS keeps the four runs within one call (about 5 min on two H200s; 101 s
# with SCALE_KERNELS=vectorized..cpasync).
SCALE_KERNELS ?= naive..wgmma
gpu-scale: export NCCL_NVLS_ENABLE := 0
gpu-scale: gpu-site
	$(GP) build >/dev/null
	CUDA_VISIBLE_DEVICES=0 $(GP) profile -k $(SCALE_KERNELS) --size 2048 --out $(RUNS) --run-id scale-profile-1
	$(GP) profile -k $(SCALE_KERNELS) --size 2048 --gpus all --out $(RUNS) --run-id scale-profile-all
	CUDA_VISIBLE_DEVICES=0 $(GP) bench -k $(SCALE_KERNELS) --sizes 2048 --max-seconds 1 --out $(RUNS) --run-id scale-bench-1
	$(GP) bench -k $(SCALE_KERNELS) --sizes 2048 --max-seconds 1 --gpus all --out $(RUNS) --run-id scale-bench-all
	$(GP) compare $(RUNS)/scale-bench-1 $(RUNS)/scale-bench-all || true

clean:
	rm -rf $(VENV) build .pytest_cache
