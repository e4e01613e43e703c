"""The workflows, one module a verb: each a library function that takes an options record (a
frozen dataclass) and a `Progress`, does the work through the layers below, and returns its
result. The command line parses its options into the record, calls the function and prints; the
notebook API (`import gemmprof`) calls the same function, so the two cannot disagree."""
