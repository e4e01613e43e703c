"""Profile a Python function under Nsight Compute, from a notebook or a script: the library call
behind `gemmprof.profile_function`.

The function (with its configurations) is pickled by value with cloudpickle and run by a child
process under ncu (`function_child`), each configuration inside the NVTX ranges
`gemmprof-function/config <i>`, which ncu's filter takes: whatever the function launches there
is profiled, nothing outside. So it works in a Jupyter kernel that was not started under ncu,
and the notebook's own CUDA context is never touched. The run directory is a program run's
(`gemmprof report`, `open_run` read it), its run.json saying which function and configurations.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import GemmprofError
from .function_child import NVTX_ROOT, RAISED
from .nvtx import CAPTURE

SOURCE = "function"  # run.json's "source" for a function's run


def profile_function(fn: Callable, configs: Sequence[Any] | None, out: Path, run_id: str | None = None,
                     ncu: str | None = None, timeline: bool = False, captured_only: bool = True,
                     on_kernel: Callable[[str, int], None] | None = None,
                     on_line: Callable[[str], None] | None = None) -> Path:
    """Run `fn` once per configuration (a tuple: positional arguments; a dict: keywords; None or
    no configurations: one call with none) under `ncu --set full --clock-control none`, extract
    the tables, and return the run directory. `captured_only`: profile only the launches inside
    `nvtx.capture` ranges opened directly in `fn` (not its inputs' set-up or warm-ups); else all. Errors are one line (GemmprofError): nothing to
    call, a function that cannot be pickled, no ncu, counters not permitted, the function raising."""
    from .. import metrics as metric_table
    from ..extract.run import extract_run
    from ..names import check_run_id
    from ..paths import check_out_dir
    from ..runs.rundir import REPO_ROOT, RunDir, new_run_id
    from .ncu import Filters, NcuOptions, resolve_ncu
    from .program import NCU_FAILED, OK, PROGRAM_FAILED, profile_program
    from .provenance import collect_environment, git_fields

    if not callable(fn):
        raise GemmprofError(f"{fn!r} is not a function", "pass the function itself: profile_function(my_gemm, ...)")
    configs = [None] if configs is None or len(configs) == 0 else list(configs)
    if run_id is not None:
        check_run_id(run_id)
    out = Path(out)
    check_out_dir(out)
    payload = _payload(fn, configs)
    exe = resolve_ncu(ncu)
    env = collect_environment(ncu=str(exe), nvml_only=True)
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", "function"))
    run = RunDir.create(out / (run_id or new_run_id(env.get("gpu_slug", "gpu"))), {
        "kind": "profile", "source": SOURCE, "function": name, "configs": [repr(c) for c in configs],
        "cwd": os.getcwd(), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **git_fields(REPO_ROOT),
        "environment": env, "complete": False,
    })
    folder = Path(tempfile.mkdtemp(prefix="gemmprof-function-"))
    error = folder / "error.txt"
    path = folder / "payload.pickle"
    path.write_bytes(payload(str(error)))
    opts = NcuOptions(ncu=exe, clock_control="none", timeline=timeline, extra_metrics=metric_table.ncu_extra_metrics())
    argv = [sys.executable, "-m", "profiler.measure.function_child", str(path)]
    ranges = (tuple(f"{NVTX_ROOT}/config {i}/{CAPTURE}/" for i in range(len(configs))) if captured_only
              else (f"{NVTX_ROOT}/",))
    done = profile_program(run, argv, opts, Filters(nvtx_include=ranges), compress=True, force=True,
                           on_kernel=on_kernel, on_line=on_line)
    status = done.record["program_status"]
    if status == PROGRAM_FAILED and done.record["program_exit_code"] == RAISED and error.is_file():
        raise GemmprofError(f"the function raised in {error.read_text().strip()}",
                            f"the launches profiled before it are in {run.path}" if done.report else "")
    if status == PROGRAM_FAILED:
        raise GemmprofError(f"the function's process ended with code {done.record['program_exit_code']}",
                            f"ncu's output is in {run.path / done.record['log']}")
    if status == NCU_FAILED or done.report is None:
        nothing = ("nothing was profiled: no launch inside gemmprof.capture(...)" if captured_only
                   else "nothing was profiled: the function launched no kernel")
        raise GemmprofError(nothing if done.report is None else f"ncu failed (exit code {done.record['ncu_exit_code']})",
                            ("mark the region with `with gemmprof.capture(...)` directly in the function, or pass "
                             "captured_only=False; " if captured_only else "") + f"ncu's output is in {run.path / done.record['log']}")
    extract_run(run)
    run.update_meta(complete=status == OK, program_status=status)
    return run.path


def _payload(fn: Callable, configs: list) -> Callable[[str], bytes]:
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
