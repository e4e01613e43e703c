"""A workflow's progress on the terminal (or a notebook's output): the `Progress` that the command
line and `import gemmprof` hand to `profiler.workflows`, printing through one rich console.

A workflow says what it is doing (`working`), walks a work list (`bar`), prints lines and tables
(`say`, `show`) and asks before something long (`ask`); this module decides how that looks: a
spinner, a bar with what it is at, done of total and the time so far, lines scrolling above it."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from rich.console import Console

from .terminal import make_console, progress_bar


class ConsoleProgress:
    """`profiler.workflows.progress.Progress` on a rich console (the command's own by default)."""

    def __init__(self, console: Console | None = None):
        self.console = console or make_console()

    def say(self, text: str, **style) -> None:
        """One line; `style` as rich's `Console.print` takes it (markup, highlight, soft_wrap)."""
        self.console.print(text, **style)

    def show(self, renderable) -> None:
        self.console.print(renderable)

    @contextmanager
    def working(self, text: str) -> Iterator[Callable[[str], None]]:
        """A spinner saying `text` while the block runs; the block may change what it says."""
        with self.console.status(text) as status:
            yield status.update

    @contextmanager
    def bar(self, description: str, total: int | None, spinner: bool = False) -> Iterator[ConsoleBar]:
        """A work list of `total` items; `spinner`: a spinner before the description (a program's
        launches, whose end is not known)."""
        if spinner:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), console=self.console, transient=False)
        else:
            progress = progress_bar(self.console)
        bar = ConsoleBar(progress, progress.add_task(description, total=total))
        with progress:
            yield bar

    def ask(self, question: str, why: str = "") -> bool | None:
        """The user's yes or no (no by default), `why` shown first; None where no one can answer
        (no terminal)."""
        import sys

        import typer

        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return None
        if why:
            self.console.print(why, soft_wrap=True)
        return typer.confirm(question, default=False)


class ConsoleBar:
    """One task of a rich progress display, and the lines printed above it."""

    def __init__(self, progress, task):
        self.progress, self.task = progress, task

    def advance(self, description: str | None = None) -> None:
        self.progress.advance(self.task)
        if description is not None:
            self.progress.update(self.task, description=description)

    def describe(self, description: str) -> None:
        self.progress.update(self.task, description=description)

    def say(self, text: str, **style) -> None:
        self.progress.console.print(text, **style)

    def per_gpu(self, plan) -> GpuProgress:
        return GpuProgress(self.progress, plan)


class GpuProgress:
    """One progress line per GPU (jobs finished there) beside the command's overall bar."""

    def __init__(self, progress, plan):
        self.progress = progress
        self.tasks = {g.index: progress.add_task(f"  GPU {g.index} {g.name or ''}".rstrip(), total=None) for g in plan.gpus}

    def __call__(self, done) -> None:
        if done.pin not in self.tasks:  # a worker of an existing cluster
            self.tasks[done.pin] = self.progress.add_task(f"  GPU {done.pin} {getattr(done.gpu, 'name', '') or ''}".rstrip(), total=None)
        if done.error and not done.final:
            self.progress.console.print(f"  {done.job.key}: failed on GPU {done.pin} ({done.error}); retrying once", markup=False)
        elif done.error:
            self.progress.console.print(f"  {done.job.key}: failed again ({done.error}); reported, the rest go on", markup=False)
        self.progress.advance(self.tasks[done.pin])
