"""`python -m profiler.extract.prefetch REPORT...`: fill each report's extraction cache.

A separate entry point because it must import ncu_report before numpy is loaded (the copy bundled
with ncu 2025.3 crashes otherwise), and `run.py` needs pandas at import time.
"""

import sys

from .ncu_reader import import_ncu_report

import_ncu_report()

from pathlib import Path  # noqa: E402

from .run import extract_report  # noqa: E402

if __name__ == "__main__":
    for path in sys.argv[1:]:
        extract_report(Path(path))
