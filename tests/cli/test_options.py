"""Shape options of the commands (profiler.cli._options): --sizes and --mnk parsed and merged."""

import pytest

from profiler.cli._options import gather_shapes, parse_sizes
from profiler.errors import GemmprofError


@pytest.mark.parametrize("text,shapes", [("256,512", [(256, 256, 256), (512, 512, 512)]),
                                         ("1536x512x2048, 777", [(1536, 512, 2048), (777, 777, 777)]),
                                         ("256..2048", [(256,) * 3, (512,) * 3, (1024,) * 3, (2048,) * 3]),
                                         ("1000..1999", [(1000,) * 3])])
def test_parse_sizes(text, shapes):
    assert parse_sizes(text) == shapes


@pytest.mark.parametrize("text", ["", "abc", "12,-4", "0", "1x2", "100000", "512..256", "0..8"])
def test_parse_sizes_rejects_malformed(text):
    with pytest.raises(GemmprofError):
        parse_sizes(text)


def test_gather_shapes_merges_and_dedups():
    assert gather_shapes("128,256", (1536, 512, 2048), "1024") == [(128, 128, 128), (256, 256, 256), (1536, 512, 2048)]
    assert gather_shapes(None, None, "1024") == [(1024, 1024, 1024)]
    assert gather_shapes("128,128", None, "1") == [(128, 128, 128)]
