"""`python -m gemmprof`: the command line, the same as the `gemmprof` script."""

from profiler.cli import main

main()
