"""Profiling a Python function under Nsight Compute, from a notebook or a script: the function
(with its configurations) pickled by value with cloudpickle, to be run by a child process under
ncu (`function_child`), each configuration inside the NVTX ranges `gemmprof-function/config <i>`,
which ncu's filter takes: whatever the function launches there is profiled, nothing outside. So
it works in a Jupyter kernel that was not started under ncu, and the notebook's own CUDA context
is never touched. The workflow around it is `profiler.workflows.function`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from ..errors import GemmprofError

SOURCE = "function"  # run.json's "source" for a function's run


def payload(fn: Callable, configs: list) -> Callable[[str], bytes]:
    """The pickled payload, made now (so a function that cannot be pickled is said at once),
    completed with the error file's path later."""
    try:
        import cloudpickle
    except ImportError:
        raise GemmprofError("profiling a function needs cloudpickle", "pip install 'gemmprof[gpu]'") from None
    try:
        function = cloudpickle.dumps(fn)
        cloudpickle.dumps(configs)
    except Exception as exc:  # noqa: BLE001  (what cannot be pickled varies: a lock, an open file, a GPU array)
        raise GemmprofError(f"the function or its configurations cannot be sent to the profiled process: {exc}",
                            "build the inputs inside the function from its configuration (sizes, dtypes), "
                            "not in the notebook") from None
    return lambda error: cloudpickle.dumps({"function": function, "configs": configs, "error": error,
                                            "sys_path": [p for p in sys.path if p]})
