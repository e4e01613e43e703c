"""SIGTERM handled like Ctrl-C: a command that keeps what it finished on KeyboardInterrupt (bench
writes its tables and marks the run incomplete) does the same when it is killed politely, e.g. by
a CI timeout or a batch scheduler."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Terminated(KeyboardInterrupt):
    """Raised in the main thread by SIGTERM inside `terminate_as_interrupt`; `signum` sets the
    exit status (128 + signal number, as a shell reports it)."""

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__(f"signal {signum}")
        self.signum = int(signum)


def _raise_terminated(signum, frame) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the clean-up short
    raise Terminated(signum)


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Inside the block, SIGTERM raises `Terminated` (a KeyboardInterrupt); the previous handler
    is restored after it. Outside the main thread (where signals cannot be caught) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
