"""What the workflows' options records share (profiler.workflows.options): a record from named
values, as a command's parameters or a notebook's keywords give them; the fan-out's plan."""

from pathlib import Path

import pytest

from profiler.errors import GemmprofError
from profiler.workflows.bench import BenchOptions
from profiler.workflows.options import FanoutOptions, check_names, record_of


def test_a_record_takes_its_fields_each_as_it_wants_them():
    record = record_of(BenchOptions, {"kernel": "naive", "mnk": [1, 2, 3], "out": "runs", "cublas": False,
                                      "manifest": None, "sizes": None})
    assert record == BenchOptions(kernel=["naive"], mnk=(1, 2, 3), out=Path("runs"), cublas=False)


def test_a_name_no_field_has_is_one_line():
    check_names(BenchOptions, {"kernel": ["naive"]}, "gemmprof.bench()")
    with pytest.raises(GemmprofError, match=r"gemmprof.bench\(\) takes no kernl"):
        check_names(BenchOptions, {"kernl": ["naive"]}, "gemmprof.bench()")


def test_no_fanout_option_is_no_plan():
    assert FanoutOptions().plan() is None
    with pytest.raises(GemmprofError, match="--shared-dir applies with --gpus or --scheduler only"):
        FanoutOptions(shared_dir=Path("/tmp")).plan()
