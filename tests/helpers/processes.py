"""Children that a test interrupts."""

import signal


def interruptible() -> None:
    """preexec_fn for a child the test sends SIGINT: a shell starts background jobs (`cmd &`,
    nohup) with SIGINT ignored, the child inherits that and Python then installs no
    KeyboardInterrupt handler, so the signal would be lost. The child gets the default back."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
