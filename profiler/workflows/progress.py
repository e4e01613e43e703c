"""What a workflow tells its caller while it runs: the `Progress` protocol, and `Quiet`, the
caller that wants none of it.

A workflow never prints: it says what it is doing, walks a work list, hands over lines and
tables, and asks before something long, through the `Progress` it was given. The command line and
the notebook pass `profiler.render.progress.ConsoleProgress`; a test or a script passes `Quiet`."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, ContextManager, Iterator, Protocol


class Bar(Protocol):
    """A work list under way: one item done, what it is at, a line above it, a line per GPU."""

    def advance(self, description: str | None = None) -> None: ...
    def describe(self, description: str) -> None: ...
    def say(self, text: str, **style) -> None: ...
    def per_gpu(self, plan) -> Callable: ...


class Progress(Protocol):
    """`say` a line and `show` a table (rich markup and renderables: `style` as rich's print);
    `working` while a step without items runs (the block may change what it says); `bar` over a
    work list of `total` items; `ask` a yes-or-no question, `why` shown first (None: no one can
    answer)."""

    def say(self, text: str, **style) -> None: ...
    def show(self, renderable) -> None: ...
    def working(self, text: str) -> ContextManager[Callable[[str], None]]: ...
    def bar(self, description: str, total: int | None, spinner: bool = False) -> ContextManager[Bar]: ...
    def ask(self, question: str, why: str = "") -> bool | None: ...


class Quiet:
    """A `Progress` (and its `Bar`) that shows nothing and can ask no one."""

    def say(self, text: str, **style) -> None:
        return None

    def show(self, renderable) -> None:
        return None

    @contextmanager
    def working(self, text: str) -> Iterator[Callable[[str], None]]:
        yield lambda text: None

    @contextmanager
    def bar(self, description: str, total: int | None, spinner: bool = False) -> Iterator[Quiet]:
        yield self

    def ask(self, question: str, why: str = "") -> bool | None:
        return None

    def advance(self, description: str | None = None) -> None:
        return None

    def describe(self, description: str) -> None:
        return None

    def per_gpu(self, plan) -> Callable:
        return lambda done: None
