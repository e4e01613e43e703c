"""`python -m profiler.extract.prefetch REPORT...`: fill each report's extraction cache; with
`--serve`, fill it for each report path that arrives on stdin, one a line, until stdin closes.

`gemmprof profile` starts one server once ncu replays its first kernel: the imports (pandas, the
reader) and a reader worker with ncu_report loaded (`read_child.prestart`) are ready while ncu profiles,
so a report is read the moment it is written, and the profile of one kernel costs little beyond
ncu itself. It reads the same way the foreground does (`extract_report`): where only the
ncu_report bundled with ncu is at hand, the launches are read in a worker child and the tables
written here, with ncu_report never loaded in the process that writes parquet (on the device, a
prefetch that loaded both died after its first table, and the foreground had to redo every
report). A failure is redone, loudly, by the foreground's `extract_run`.
"""

import os
import select
import sys
from pathlib import Path

from . import read_child
from .run import extract_report
from .tables import must_isolate

# The server warms up while ncu replays the first kernel (after the target's start): where
# CPUs are short, ncu and its target, whose time the profile waits for, go first. Its reader
# workers inherit it.
SERVER_NICENESS = 10


def serve() -> None:
    """Read each report named on stdin; answer each with its name on stdout once done (read, or
    failed: the foreground then reads it and says why)."""
    os.nice(SERVER_NICENESS)
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # anything else printed is not an answer
    if not must_isolate():  # ncu_report reads here: its one-time set-up now, while ncu runs
        try:
            extract_report(Path(read_child.WARM_REPORT), cache=None)
        except Exception:  # noqa: BLE001  (a warm-up only)
            pass
    while True:
        if must_isolate() and not _input_ready():
            read_child.prestart()  # the next report's worker warms up while ncu runs
        line = sys.stdin.readline()
        if not line:
            break
        try:
            extract_report(Path(line.strip()))
        except Exception:  # noqa: BLE001  (the foreground reads it again and says why)
            pass
        answers.write(line)
        answers.flush()
    answers.close()
    os._exit(0)  # every table is written and closed: the interpreter's teardown (pandas, pyarrow, ncu_report) would only delay the profile's end


def _input_ready() -> bool:
    """A line or the end of input is waiting: no worker to warm up for (after the last report,
    the caller has closed our input by the time it is read)."""
    return bool(select.select([sys.stdin], [], [], 0)[0])


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        for path in sys.argv[1:]:
            extract_report(Path(path))
