"""Shape suites (kernels/shapes.toml, shipped with the kernel catalogue): named lists of shapes
that `bench --suite NAME` runs.

A suite is data, declared once in the TOML file; this module only reads and checks it.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import GemmprofError
from .shapes import MAX_DIM, Shape
from ..shipped import KERNELS_DIR
from .toml_tables import named_tables, read_toml

SUITES_PATH = KERNELS_DIR / "shapes.toml"


def parse_suites(text: str, where: str = "shapes.toml") -> dict[str, list[Shape]]:
    """Every suite of a shapes file: name -> shapes (in file order, each once). Mistakes (bad
    TOML, a shape that is not MxNxK, a dimension out of range, an empty suite) are one line."""
    suites = named_tables(read_toml(text, where), "suite", where)
    out: dict[str, list[Shape]] = {}
    for name, entry in suites.items():
        items = entry.get("shapes") if isinstance(entry, dict) else None
        if not isinstance(items, list) or not items:
            raise GemmprofError(f"{where}: suite {name!r} needs a non-empty list `shapes`")
        shapes = []
        for item in items:
            m = re.fullmatch(r"(\d+)x(\d+)x(\d+)", item) if isinstance(item, str) else None
            if m is None:
                raise GemmprofError(f"{where}: suite {name!r}: {str(item)[:40]!r} is not MxNxK")
            shape = tuple(int(v) for v in m.groups())
            if not all(1 <= d <= MAX_DIM for d in shape):
                raise GemmprofError(f"{where}: suite {name!r}: {item} has a dimension outside 1..{MAX_DIM}")
            shapes.append(shape)
        out[name] = list(dict.fromkeys(shapes))
    return out


def load_suite(name: str, path: Path = SUITES_PATH) -> list[Shape]:
    """The shapes of suite `name` in `path`."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise GemmprofError(f"cannot read the shape suites {path}: {exc.strerror or exc}") from None
    suites = parse_suites(text, path.name)
    if name not in suites:
        raise GemmprofError(f"no suite {name!r} in {path}", f"choose from: {', '.join(suites)}")
    return suites[name]
