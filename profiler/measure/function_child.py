"""`python -m profiler.measure.function_child PAYLOAD`: run a Python function under ncu, once per
configuration, each call inside NVTX ranges `gemmprof-function/config <i>` (what `function.py`'s
ncu filter takes), the caller's own ranges (`gemmprof.capture`) nested inside.

The payload (cloudpickle) holds the function (by value when it was defined in a notebook or a
`__main__` script, so no module has to be importable here), the configurations and the caller's
sys.path. A function that raises ends the child with exit code 3 and its error, one line, in the
file the payload names; ncu keeps what it profiled before.
"""

from __future__ import annotations

import sys
import traceback

NVTX_ROOT = "gemmprof-function"
RAISED = 3


def call(fn, config) -> None:
    """fn(*config) for a tuple or list, fn(**config) for a dict, fn(config) for anything else,
    fn() for None."""
    if config is None:
        fn()
    elif isinstance(config, dict):
        fn(**config)
    elif isinstance(config, (tuple, list)):
        fn(*config)
    else:
        fn(config)


def main(path: str) -> int:
    import cloudpickle

    with open(path, "rb") as f:
        payload = cloudpickle.load(f)
    sys.path[:0] = [p for p in payload.get("sys_path", []) if p not in sys.path]
    fn = cloudpickle.loads(payload["function"])
    from .nvtx import nvtx_range

    for i, config in enumerate(payload["configs"]):
        try:
            with nvtx_range(NVTX_ROOT), nvtx_range(f"config {i}"):
                call(fn, config)
        except Exception as exc:  # noqa: BLE001  (the caller says it in one line)
            where = traceback.extract_tb(exc.__traceback__)[-1]
            with open(payload["error"], "w") as f:
                f.write(f"config {i} ({config!r}): {type(exc).__name__}: {exc} (at {where.filename}:{where.lineno})")
            return RAISED
    try:  # the launches finish before the process ends: ncu sees them whole
        import cupy

        cupy.cuda.runtime.deviceSynchronize()
    except Exception:  # noqa: BLE001
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
