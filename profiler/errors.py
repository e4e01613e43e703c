"""User-facing errors: one line that says what went wrong and what to do about it.

The CLI catches `GemmprofError` and prints it without a traceback; anything else is a bug.
"""


class GemmprofError(Exception):
    """A mistake or missing prerequisite the user can fix; `hint` says how."""

    def __init__(self, message: str, hint: str = "", exit_code: int = 2):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.exit_code = exit_code  # what the CLI exits with (compare: 3 for a run it cannot trust)

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class GemmprofWarning(UserWarning):
    """Something the user should know that does not stop the command; the CLI prints it as one
    line (`gemmprof: warning: ...`)."""


def warn(message: str) -> None:
    """Report `message` once as a GemmprofWarning (library code prints nothing itself)."""
    import warnings

    warnings.warn(message, GemmprofWarning, stacklevel=2)
