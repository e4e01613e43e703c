"""User-facing errors: one line that says what went wrong and what to do about it.

The CLI catches `GemmprofError` and prints it without a traceback; anything else is a bug.
"""

from enum import IntEnum


class Exit(IntEnum):
    """Every exit status of the command line, declared once. A script or a CI job tells a
    mistake (fix the command) from a machine that lacks what the command needs (run it
    elsewhere) by the status alone, and each missing thing has its own: a job without a GPU
    expects NO_GPU or NO_CUDA from `bench`, and NO_NCU from `profile`, never a bare failure."""

    OK = 0
    FAILED = 1  # the command ran and found a failure: a FAIL/ERROR row, a regression, a program that failed
    USAGE = 2  # a mistake the user can fix: an option, a path, a manifest, a run that is not one
    BAD_RUN = 3  # compare: a run that cannot be trusted (incomplete, unreadable, invalid tables)
    NO_GPU = 4  # no usable CUDA GPU (no device, no driver)
    NO_CUDA = 5  # CUDA software gemmprof needs is not installed: CuPy (the [gpu] extra) or nvcc
    NO_NCU = 6  # Nsight Compute (ncu) is not installed or not where it was said to be


class GemmprofError(Exception):
    """A mistake or missing prerequisite the user can fix; `hint` says how."""

    def __init__(self, message: str, hint: str = "", exit_code: int = Exit.USAGE):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.exit_code = exit_code  # what the CLI exits with: one of `Exit`

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class GemmprofWarning(UserWarning):
    """Something the user should know that does not stop the command; the CLI prints it as one
    line (`gemmprof: warning: ...`)."""


def warn(message: str) -> None:
    """Report `message` once as a GemmprofWarning (library code prints nothing itself)."""
    import warnings

    warnings.warn(message, GemmprofWarning, stacklevel=2)
