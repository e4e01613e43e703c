"""gemmprof: an SGEMM kernel ladder, a benchmark you can trust, and Nsight Compute counters
turned into a diagnosis of why a kernel is slower than cuBLAS.

Layers (imports only point down): measure -> extract -> analyze -> render; the workflows
(`profiler.workflows`) on top of them, and the CLI and the notebook API (`import gemmprof`) on top
of the workflows.
"""

__version__ = "0.1.0"
