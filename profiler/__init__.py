"""gemmprof: an SGEMM kernel ladder, a benchmark you can trust, and Nsight Compute counters
turned into a diagnosis of why a kernel is slower than cuBLAS.

Layers (imports only point down): measure -> extract -> analyze -> render, with the CLI on top.
"""

__version__ = "0.1.0"
