"""The manifest's parser (profiler.catalogue.manifest_parse): every mistake in ladder.toml is one line naming the
kernel."""

from __future__ import annotations

import json

import pytest

from profiler.errors import GemmprofError
from profiler.catalogue.manifest_parse import parse_manifest


BASE = """
[[kernel]]
name = "a"
file = "01_naive.cu"
entry = "sgemm_naive"
tier = "fp32"
idea = "x"
grid = ["cdiv(M, 32)"]
block = [32]
"""

_ENTRY = '[[kernel]]\nname = "x"\nfile = "x.cu"\nentry = "x"\ntier = "fp32"\nidea = "i"\nblock = [256]\n'


@pytest.mark.parametrize(
    "text,fragment",
    [
        (BASE.replace('tier = "fp32"', 'tier = "fp64"'), "tier must be"),
        (BASE.replace('idea = "x"\n', ""), "missing"),
        (BASE + 'colour = "red"\n', "unknown keys"),
        (BASE + BASE, "duplicate"),
        (BASE.replace('["cdiv(M, 32)"]', '["cdiv(M, Q)"]'), "bad launch expression"),
        (BASE + 'predecessor = "zz"\n', "predecessor"),
        ("[[kernel]\nname=", "not valid TOML"),
    ],
)
def test_bad_manifest_is_one_clear_error(text, fragment):
    with pytest.raises(GemmprofError, match=fragment):
        parse_manifest(text)


@pytest.mark.parametrize("grid, fragment", [
    ('["cdiv(M, 32"]', "was never closed"),
    ('["' + " + ".join(["M"] * 1500) + '"]', "at most 400"),
    ('["' + "(" * 30 + "M" + ")" * 30 + '"]', "parentheses deep"),
    ('["M // 0"]', "divides by zero"),
    ('["cdiv(M, 0)"]', "divides by zero"),
    ('["min()"]', "cannot be evaluated"),
    ("5", "grid must be list of expr"),
    ('["M ** 9"]', "unsupported expression"),
])
def test_bad_expressions_are_one_line_naming_the_kernel(grid, fragment):
    from profiler.catalogue.manifest_parse import parse_manifest

    with pytest.raises(GemmprofError) as caught:
        parse_manifest(_ENTRY + f"grid = {grid}\n")
    message = str(caught.value)
    assert fragment in message and message.startswith("ladder.toml: x:") and "\n" not in message


@pytest.mark.parametrize("text", ["kernel = 5", "kernel = [1, 2]", "[kernel]\nname = 'x'"])
def test_kernel_must_be_an_array_of_tables(text):
    from profiler.catalogue.manifest_parse import parse_manifest

    with pytest.raises(GemmprofError, match="array of tables"):
        parse_manifest(text)


ENTRY = """
[[kernel]]
name = "k"
file = "k.cu"
entry = "k"
tier = "{tier}"
idea = "x"
grid = [1]
block = [32]
{extra}
"""


def test_manifest_checks_tier_and_expect_fail_types():
    assert parse_manifest(ENTRY.format(tier="fp32-tc", extra="expect_fail = true"))[0].expect_fail
    with pytest.raises(GemmprofError, match="expect_fail must be bool"):
        parse_manifest(ENTRY.format(tier="fp32-tc", extra='expect_fail = "yes"'))
    with pytest.raises(GemmprofError, match="tier must be one of"):
        parse_manifest(ENTRY.format(tier="tf32", extra=""))


@pytest.mark.parametrize("flag", ["-ccbin=/tmp/evil", "--compiler-bindir", "-Xcompiler=-fplugin=/tmp/p.so",
                                  "-Xcompiler", "--compiler-options=-B/tmp", "-optf", "--run", "-Xlinker"])
def test_host_compiler_flags_need_the_files_permission(flag):
    from profiler.catalogue.manifest_parse import parse_manifest

    entry = ('[[kernel]]\nname = "k"\nfile = "naive.cu"\nentry = "sgemm_naive"\ntier = "fp32"\nidea = "x"\n'
             f'grid = [1, 1, 1]\nblock = [1, 1, 1]\nnvcc_flags = ["-lineinfo", {json.dumps(flag)}]\n')
    with pytest.raises(GemmprofError, match="allow_host_compiler_flags"):
        parse_manifest(entry, "user.toml")
    (spec,) = parse_manifest("allow_host_compiler_flags = true\n" + entry, "user.toml")
    assert flag in spec.nvcc_flags


def test_the_builtin_ladder_needs_no_host_compiler_flags():
    from profiler.catalogue.kernel_paths import MANIFEST_PATH
    from profiler.catalogue.manifest import load_manifest
    from profiler.catalogue.manifest_parse import ALLOW_HOST_FLAGS_KEY, guarded_nvcc_flags

    assert ALLOW_HOST_FLAGS_KEY not in MANIFEST_PATH.read_text()
    assert all(not guarded_nvcc_flags(s.nvcc_flags) for s in load_manifest())
    assert guarded_nvcc_flags(["-O3", "-lineinfo", "-I", "x", "--use_fast_math"]) == []
