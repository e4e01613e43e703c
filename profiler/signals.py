"""SIGTERM handled like Ctrl-C: a command that keeps what it finished when interrupted (bench
writes its tables and marks the run incomplete, in a `finally`) does the same when it is killed
politely, e.g. by a CI timeout or a batch scheduler.

`Terminated` is a BaseException, not a KeyboardInterrupt: `except Exception` does not swallow it,
and Typer (which turns KeyboardInterrupt into a silent exit 130) lets it reach the CLI's `main`,
which exits 143 (128 + SIGTERM) as a shell reports a killed process."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Terminated(BaseException):
    """Raised in the main thread by SIGTERM inside `terminate_as_interrupt`; `signum` sets the
    exit status (128 + signal number)."""

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__(f"signal {signum}")
        self.signum = int(signum)


def _raise_terminated(signum, frame) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the clean-up short
    raise Terminated(signum)


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Inside the block, SIGTERM raises `Terminated`; the previous handler
    is restored after it. Outside the main thread (where signals cannot be caught) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
