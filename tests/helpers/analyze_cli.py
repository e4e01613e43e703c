"""`gemmprof analyze` as its own one-command app, invoked in process (the CLI's and the launch
grouping's tests share it)."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from profiler.cli.analyze import analyze


def app() -> typer.Typer:
    """The command alone, as profiler.cli registers it."""
    cli = typer.Typer()
    cli.command("analyze")(analyze)
    cli.command("other")(lambda: None)  # two commands: typer keeps the command name
    return cli


def run(*args: str):
    return CliRunner().invoke(app(), ["analyze", *map(str, args)])
