"""Data files read as TOML: a bad file is one line naming it, whatever command met it."""

import pytest

from profiler.errors import GemmprofError
from profiler.catalogue.toml_tables import entries, named_tables, read_toml


def test_bad_toml_names_the_file_and_the_line():
    with pytest.raises(GemmprofError, match=r"^truth.toml is not valid TOML: .*line 2"):
        read_toml("[case.a]\ncauses = 1 1\n", "truth.toml")


def test_arrays_of_tables_are_a_list_and_absent_is_empty():
    data = read_toml('[[kernel]]\nname = "a"\n[[kernel]]\nname = "b"\n', "m.toml")
    assert [e["name"] for e in entries(data, "kernel", "m.toml")] == ["a", "b"]
    assert entries(data, "dispatch", "m.toml") == []


@pytest.mark.parametrize("text", ['kernel = 3', 'kernel = [1, 2]', '[kernel]\nname = "a"'])
def test_an_array_of_tables_that_is_not_one_is_one_line(text):
    with pytest.raises(GemmprofError, match=r"m.toml: 'kernel' must be an array of tables \(\[\[kernel\]\] entries\)"):
        entries(read_toml(text, "m.toml"), "kernel", "m.toml")


def test_named_tables_by_name():
    data = read_toml('[suite.small]\nshapes = ["1x1x1"]\n[suite.big]\nshapes = []\n', "s.toml")
    assert list(named_tables(data, "suite", "s.toml")) == ["small", "big"]


@pytest.mark.parametrize("text", ['', 'suite = 1', '[suite]'])
def test_no_named_tables_is_one_line(text):
    with pytest.raises(GemmprofError, match=r"^s.toml: no \[suite.NAME\] tables$"):
        named_tables(read_toml(text, "s.toml"), "suite", "s.toml")
