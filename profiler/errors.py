"""User-facing errors: one line that says what went wrong and what to do about it.

The CLI catches `GemmprofError` and prints it without a traceback; anything else is a bug.
"""


class GemmprofError(Exception):
    """A mistake or missing prerequisite the user can fix; `hint` says how."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message
