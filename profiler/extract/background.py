"""The processes that read reports in the background while ncu works, as the profiling side
starts them: this module imports nothing heavy, so starting them costs the profile nothing before
its first ncu run (the readers themselves are `prefetch`'s)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ..subprocess_env import child_env


class ExtractServer:
    """A background process that fills each report's cache as soon as it is handed the report
    (`prefetch --serve`), started before the first report exists so that its imports and its
    reader worker are ready when the report is. It answers each report with a line once it is
    done with it, so `reports_read()` returns before the process has torn itself down; `wait()`
    closes its input and waits for it to end."""

    def __init__(self):
        self.process = subprocess.Popen([sys.executable, "-m", "profiler.extract.prefetch", "--serve"],
                                        env=child_env(), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.unanswered = 0

    def submit(self, report: Path) -> None:
        try:
            self.process.stdin.write(f"{report}\n".encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):  # the server died: the foreground reads the report itself
            return
        self.unanswered += 1

    def reports_read(self) -> None:
        """Close the server's input and return once it has answered every report (or died)."""
        self._close_input()
        while self.unanswered and self.process.stdout.readline():
            self.unanswered -= 1

    def wait(self) -> int:
        self._close_input()
        self.process.stdout.read()  # answers not read yet: a full pipe would block the server
        self.unanswered = 0
        return self.process.wait()

    def _close_input(self) -> None:
        try:
            self.process.stdin.close()
        except (BrokenPipeError, OSError):
            pass


class ReportReader:
    """One report read in a child process of its own (the fan-out starts one as each report
    arrives), waited for as a server is: `reports_read()` once its report is read, `wait()` for its
    exit code."""

    def __init__(self, report: Path):
        # ncu_report is imported before numpy there; a failure is redone, loudly, by extract_run
        self.process = subprocess.Popen([sys.executable, "-m", "profiler.extract.prefetch", str(report)],
                                        env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def reports_read(self) -> None:
        self.process.wait()

    def wait(self) -> int:
        return self.process.wait()
