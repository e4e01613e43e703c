"""Read launches of a report in a child process (`python -m profiler.extract.read_child REQUEST`).

Two reasons to read in a child: a report of many launches is shared among several children,
and the ncu_report bundled with ncu 2025.3 crashes when numpy was loaded before it, so a child
that imports it first is the only safe place to use it from a program that has loaded pandas.
This module therefore imports ncu_report before anything that pulls in numpy.

The request is a pickled dict in a file; the reply (rows, or the error) is pickled to another.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..errors import GemmprofError
from ..subprocess_env import child_env



def main(request_path: str) -> int:
    with open(request_path, "rb") as f:
        request = pickle.load(f)
    try:
        from .ncu_import import import_ncu_report
        from .ncu_reader import open_report

        import_ncu_report()  # before numpy: see the module docstring
        from .rows import read_rows

        with open_report(request["path"], request["shown"], prepared=True) as report:
            count = len(report)
            if request["count_only"] or (request["auto"] and count >= request["parallel_from"]):
                reply: dict[str, Any] = {"count": count, "rows": None}
            else:
                stop = count if request["stop"] is None else request["stop"]
                rows = read_rows(report, request["tables"], request["sass_text"], request["start"], stop)
                reply = {"count": count, "rows": rows}
    except GemmprofError as exc:
        reply = {"error": (exc.message, exc.hint)}
    with open(request["reply"], "wb") as f:
        pickle.dump(reply, f, protocol=pickle.HIGHEST_PROTOCOL)
    return 0


# A worker started ahead of its request (`prestart`), its imports done while the caller waits for
# the report: the next `Child` hands it the request instead of starting a process.
_waiting: subprocess.Popen | None = None


def prestart() -> None:
    """Start a worker that imports ncu_report now and then waits for one request on stdin."""
    global _waiting
    if _waiting is None or _waiting.poll() is not None:
        _waiting = subprocess.Popen([sys.executable, "-m", "profiler.extract.read_child", "--wait"], env=child_env(),
                                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _take_waiting() -> subprocess.Popen | None:
    global _waiting
    worker, _waiting = _waiting, None
    return worker if worker is not None and worker.poll() is None else None


class Child:
    """One worker process and its request/reply files."""

    def __init__(self, shown: str, **request: Any):
        self.shown = shown
        self.folder = tempfile.mkdtemp(prefix="gemmprof-worker-")
        self.request_path = os.path.join(self.folder, "request.pickle")
        request.update(shown=shown, reply=os.path.join(self.folder, "reply.pickle"))
        request.setdefault("count_only", False)
        request.setdefault("auto", False)
        request.setdefault("parallel_from", 0)
        with open(self.request_path, "wb") as f:
            pickle.dump(request, f, protocol=pickle.HIGHEST_PROTOCOL)
        self.reply_path = request["reply"]
        waiting = _take_waiting()
        if waiting is not None:  # warm already: hand it the request
            waiting.stdin.write(self.request_path.encode() + b"\n")
            waiting.stdin.close()
            waiting.stdin = None  # handed over: `result` only waits and reads stderr
            self.process = waiting
            return
        self.process = subprocess.Popen(
            [sys.executable, "-m", "profiler.extract.read_child", self.request_path],
            env=child_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    def result(self) -> dict[str, Any]:
        """The reply; GemmprofError for a report problem or a crash of ncu_report."""
        try:
            _, stderr = self.process.communicate()
            code = self.process.returncode
            if code != 0 or not os.path.exists(self.reply_path):
                tail = stderr.decode(errors="replace").strip().splitlines()[-1:] if stderr else []
                if code is not None and code < 0:
                    raise GemmprofError(
                        f"{self.shown}: Nsight Compute's report reader (ncu_report) crashed reading it "
                        f"(signal {-code})",
                        "the file may be corrupt; `ncu --import` it to check",
                    )
                raise RuntimeError(f"extraction worker failed ({code}): {' '.join(tail)}")
            with open(self.reply_path, "rb") as f:
                reply = pickle.load(f)
            if "error" in reply:
                raise GemmprofError(*reply["error"])
            return reply
        finally:
            for name in (self.request_path, self.reply_path):
                if os.path.exists(name):
                    os.remove(name)
            os.rmdir(self.folder)


# A small real report (naive at 512x256x128 on an H200, as tests/data/profile-h200 has it) that a
# waiting worker reads once: ncu_report's first read in a process sets up its disassembler and
# metric units, 1-2 s that would otherwise come after ncu, on the user's clock.
WARM_REPORT = os.path.join(os.path.dirname(__file__), "warm.ncu-rep.xz")


def wait_for_request() -> int:
    """`--wait`: import the reader now (ncu_report first) and read the warm-up report, then serve
    the one request whose path arrives on stdin; nothing arriving (the caller needed no worker
    after all) is no error."""
    from .ncu_import import import_ncu_report

    import_ncu_report()
    from .ncu_reader import open_report
    from .report_file import prepare_file
    from .rows import read_rows

    try:
        with tempfile.TemporaryDirectory(prefix="gemmprof-warm-") as folder:
            local = prepare_file(Path(WARM_REPORT), Path(folder), "warm-up")
            with open_report(str(local), "warm-up", prepared=True) as report:
                read_rows(report, ("kernels", "rules", "source", "sass", "metrics"), True, 0, len(report))
    except Exception:  # noqa: BLE001  (a warm-up only: the request is read all the same)
        pass
    line = sys.stdin.readline().strip()
    return main(line) if line else 0


if __name__ == "__main__":
    sys.exit(wait_for_request() if sys.argv[1:] == ["--wait"] else main(sys.argv[1]))
