"""Where the tests' inputs are, declared once: the checkout, the committed fixtures in tests/data/
and the committed sample run that the README's demo renders (reports/sample-h200, kept beside the
other sample reports; the package ships its tables, `profiler.shipped.SAMPLE_RUN`)."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
DATA = TESTS / "data"
# The committed real run (H200) that analysis, report and chart tests read.
SAMPLE_RUN = REPO / "reports" / "sample-h200"
# A kernel that faults on purpose (the GPU tests' error path).
FAULTY_KERNEL = TESTS / "kernels" / "faulty.cu"
# A program that is not gemmprof, profiled by `gemmprof profile -- CMD` (path as recorded in data).
PROGRAMS = TESTS / "programs"
