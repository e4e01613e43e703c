"""The kernel catalogue: the one list of kernels (the manifests in kernels/), what an entry says
(`kernel_spec`), its checks (`manifest_parse`), the launch expressions (`expressions`), where the
files are (`kernel_paths`), the dispatchers, the shape suites and `gemmprof new`'s scaffold."""
