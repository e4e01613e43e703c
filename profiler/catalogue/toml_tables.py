"""TOML text -> the tables gemmprof's data files are made of (the manifest, shape suites,
dispatchers, truth tables), each mistake one line that names the file.

Every data file is read through here so that a bad file reads the same whichever command met it.
"""

from __future__ import annotations

import tomllib

from ..errors import GemmprofError


def read_toml(text: str, where: str) -> dict:
    """The document, or a one-line error naming `where` and the line TOML stopped at."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GemmprofError(f"{where} is not valid TOML: {exc}") from None


def entries(data: dict, key: str, where: str) -> list[dict]:
    """`[[key]]` tables: a list of tables (none when absent), else a one-line error."""
    found = data.get(key, [])
    if not isinstance(found, list) or not all(isinstance(e, dict) for e in found):
        raise GemmprofError(f"{where}: '{key}' must be an array of tables ([[{key}]] entries)")
    return found


def named_tables(data: dict, key: str, where: str) -> dict:
    """`[key.NAME]` tables: name -> its keys; at least one, else a one-line error."""
    found = data.get(key)
    if not isinstance(found, dict) or not found:
        raise GemmprofError(f"{where}: no [{key}.NAME] tables")
    return found
