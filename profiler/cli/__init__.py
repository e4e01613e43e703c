"""The `gemmprof` command line: one thin module per command, registered here.

Commands parse options, call the workflow (`profiler.workflows`) and print its result. Mistakes
the user can fix surface as one line (`GemmprofError`), never a traceback.
"""

from __future__ import annotations

import functools
import gc
import importlib
import shutil
import signal
import sys
import warnings

import typer

from ..errors import GemmprofError, GemmprofWarning

# Rich's boxed --help needs room: below this many columns (a CI log, a split terminal) --help is
# click's plain text, which wraps each option's names and words whole (`profile -h` at 80 columns:
# 89 lines, where the boxes took 171 and cut `--kernel-regex` short).
RICH_HELP_MIN_COLUMNS = 100

# Each module defines a function of the same name as its command (with '-' as '_').
COMMANDS = ["env", "build", "bench", "profile", "analyze", "roofline", "report", "compare", "dispatch", "new",
            "accuracy"]


def new_app(names: list[str] = COMMANDS, boxed_help: bool | None = None) -> typer.Typer:
    """The app with the commands `names` (each command's module imported): `main` asks for the
    one command it runs, since importing the other commands' modules (the dispatcher, bench,
    report ...) and Rich's help formatting cost each run about 0.2 s on a 2-core host, before
    `profile` can start ncu. `boxed_help`: Rich's boxed --help (by default where the terminal is
    wide enough); without it, Rich's help formatting is never imported."""
    if boxed_help is None:
        boxed_help = shutil.get_terminal_size().columns >= RICH_HELP_MIN_COLUMNS
    if boxed_help:
        _one_line_rich_errors()
    app = typer.Typer(
        name="gemmprof",
        help=(
            "Why is my SGEMM slower than cuBLAS? Build and verify a ladder of CUDA SGEMM kernels, "
            "time them against cuBLAS, profile them under Nsight Compute and read the counters back."
        ),
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_show_locals=False,
        # docstring paragraphs reflow to the terminal width, boxed where it is wide enough
        rich_markup_mode="markdown" if boxed_help else None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    app.callback()(_gemmprof_options)
    for name in names:
        module = importlib.import_module(f"{__name__}.{name.replace('-', '_')}")
        app.command(name)(getattr(module, name.replace("-", "_")))
    return app


@functools.cache
def _every_command() -> typer.Typer:
    return new_app()


def __getattr__(name: str):
    """`profiler.cli.app`: the app with every command, made when first asked for (tests, the
    notebook API's --help)."""
    if name == "app":
        return _every_command()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# How an option's value reads in --help, by the type typer would print (`<list[Path]>`, `<str>`).
# A flag takes no value: nothing is printed after it.
METAVARS = {"str": "TEXT", "Path": "PATH", "path": "PATH", "file": "FILE", "directory": "DIR", "int": "INT",
            "int range": "INT", "float": "NUMBER", "float range": "NUMBER", "int,int,int": "M N K", "bool": ""}


def command(names: list[str] = COMMANDS, boxed_help: bool | None = None):
    """The app of the commands `names` as the click command it runs as, each option's metavar
    readable (TEXT, PATH, INT, NUMBER, M N K, nothing after a flag; a repeatable option says so
    in its help) where the option names none of its own."""
    from typer.core import TyperArgument, TyperOption

    every = names == COMMANDS and boxed_help is None
    cmd = typer.main.get_command(_every_command() if every else new_app(names, boxed_help))
    for sub in [cmd, *getattr(cmd, "commands", {}).values()]:
        for param in sub.params:
            if not isinstance(param, (TyperOption, TyperArgument)):
                continue
            if isinstance(param, TyperOption) and param.metavar is not None:  # named by its option
                continue
            try:
                label = param.display_type(None).strip("<>")
            except Exception:  # a type typer cannot name without a context: leave it as it is
                continue
            inner = label[len("list["):-1] if label.startswith("list[") else label
            if inner not in METAVARS:
                continue
            if isinstance(param, TyperOption):
                param.metavar = METAVARS[inner]
            else:  # an argument's metavar is its name in the usage line: change only its type column
                param.display_type_rich = lambda ctx, word=METAVARS[inner]: word
        sub.get_help_option = _bare_help(sub.get_help_option)
    return cmd


def _bare_help(get_help_option):
    """--help, which click adds to each command when asked for it, as a flag with no value."""

    def wrapped(ctx):
        option = get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option

    return wrapped


def version() -> str:
    """The installed distribution's version; the package's own when it runs from a checkout
    that is not installed (the same value: pyproject.toml reads it from profiler.__version__)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    from .. import __version__

    try:
        return installed_version("gemmprof")
    except PackageNotFoundError:
        return __version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"gemmprof {version()}")
        raise typer.Exit()


# (not `_options`: the command modules' `from ._options import ...` binds that name in this
# package to the submodule once any of them is imported)
def _gemmprof_options(
    _version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
) -> None:
    # Options of gemmprof itself, before the command; the help text is the app's (above).
    return None


_show_warning = warnings.showwarning


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    """GemmprofWarnings print as one line on stderr; other warnings as Python prints them."""
    if issubclass(category, GemmprofWarning):
        typer.secho(f"gemmprof: warning: {message}", fg=typer.colors.YELLOW, err=True)
    else:
        _show_warning(message, category, filename, lineno, file, line)


warnings.showwarning = _one_line_warning


def _one_line_usage_error(exc) -> None:
    """Typer prints usage errors (an unknown command or option, a missing value) as a boxed panel
    under the usage line; gemmprof prints every error the same way: one line, with where to look."""
    if type(exc).__name__ == "NoArgsIsHelpError":  # `gemmprof` alone: the help was printed
        return
    ctx = getattr(exc, "ctx", None)
    where = f"{ctx.command_path} -h" if ctx is not None else "gemmprof -h"
    typer.secho(f"gemmprof: error: {exc.format_message().rstrip('.')} (see '{where}')", fg=typer.colors.RED, err=True)


@functools.cache
def _one_line_rich_errors() -> None:
    """With Rich's boxed help, Typer shows a usage error through `typer.rich_utils`; it shows it
    in one line too, as every error."""
    import typer.rich_utils

    typer.rich_utils.rich_format_error = _one_line_usage_error


# Without Rich's help, click shows a usage error itself (`show`: Typer's own copy of click where
# it has one, else click's).
try:
    from typer._click import exceptions as _click_exceptions  # noqa: E402
except ImportError:
    from click import exceptions as _click_exceptions  # noqa: E402
for _error in (_click_exceptions.ClickException, _click_exceptions.UsageError):
    _error.show = lambda self, file=None: _one_line_usage_error(self)
# `gemmprof` alone: the help, on standard output as -h prints it.
_click_exceptions.NoArgsIsHelpError.show = lambda self, file=None: typer.echo(self.format_message())


_signal_seen: list[int] = []  # the signal that interrupted this run, if any


def _interrupt(signum, _frame) -> None:
    """SIGINT and SIGTERM both raise KeyboardInterrupt where the program is, so `finally` blocks
    and context managers (temporary folders, partial files) clean up the same way for both."""
    _signal_seen.append(signum)
    raise KeyboardInterrupt


def main() -> None:
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is not signal.SIG_IGN:  # a shell that ignores SIGINT keeps it ignored
            signal.signal(sig, _interrupt)
    try:
        argv = sys.argv[1:]
        command(_asked_for(argv), boxed_help=_boxed_help(argv))(prog_name="gemmprof")  # also under `python -m profiler`
    except GemmprofError as exc:
        _end_quickly()
        typer.secho(f"gemmprof: error: {exc}", fg=typer.colors.RED, err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        _interrupted()
    except SystemExit as exc:  # typer turns KeyboardInterrupt into a silent exit 130
        if exc.code == 130 or _signal_seen:
            _interrupted()
        _end_quickly()
        raise


def _asked_for(argv: list[str]) -> list[str]:
    """The one command that `argv` runs, or all of them (`gemmprof -h`, a mistyped command,
    an option before the command: their messages list or check every command)."""
    return argv[:1] if argv[:1] and argv[0] in COMMANDS else COMMANDS


def _boxed_help(argv: list[str]) -> bool:
    """Rich's boxed help where help is asked for (-h, or no command at all) and the terminal is
    wide enough."""
    helping = not argv or "-h" in argv or "--help" in argv
    return helping and shutil.get_terminal_size().columns >= RICH_HELP_MIN_COLUMNS


def _end_quickly() -> None:
    """The command is done: the interpreter's teardown need not collect garbage while it unloads
    pandas, pyarrow and the rest (a tenth of a second, a twentieth of `profile` beyond ncu)."""
    gc.disable()
    gc.freeze()


def _interrupted() -> None:
    typer.secho("gemmprof: interrupted", err=True)
    sys.exit(128 + (_signal_seen[0] if _signal_seen else signal.SIGINT))


if __name__ == "__main__":
    main()
