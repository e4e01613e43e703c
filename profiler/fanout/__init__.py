"""Fan `bench` and `profile` out: one worker per GPU (`--gpus`), locally or on a Dask cluster
(`--scheduler`); the job list (`measure.jobs`) is the same as the serial path's, and every
finished job is merged into the one run directory as it arrives."""
