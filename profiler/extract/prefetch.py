"""`python -m profiler.extract.prefetch REPORT...`: fill each report's extraction cache.

`gemmprof profile` starts one per finished report, in the background. It reads the same way the
foreground does (`extract_report`): where only the ncu_report bundled with ncu is at hand, the
launches are read in a worker child and the tables written here, with ncu_report never loaded in
the process that writes parquet (on the device, a prefetch that loaded both died after its first
table, and the foreground had to redo every report).
"""

import sys
from pathlib import Path

from .run import extract_report

if __name__ == "__main__":
    for path in sys.argv[1:]:
        extract_report(Path(path))
