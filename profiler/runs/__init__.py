"""Run directories, how commands talk to each other: the folder and its run.json (`rundir`),
what its files must hold (`schema`), and the bench log a bench appends to (`bench_log`).
Opening a run of any kind for reading is `profiler.run.open_run`."""
