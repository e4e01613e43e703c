"""The device scripts (scripts/*.sh) run only on the GPU machine, where a broken line costs a device
call: the profiler names their embedded Python (heredocs) imports must exist here too. (probes.sh
once imported PROBES_MANIFEST from where it no longer lived, and a session's probe capture was lost.)"""

from __future__ import annotations

import re

import pytest

from helpers.paths import REPO

SCRIPTS = sorted((REPO / "scripts").glob("*.sh"))
HEREDOC = re.compile(r"<<\s*'?(\w+)'?[^\n]*\n(.*?)\n\1\n", re.S)
IMPORT = re.compile(r"^\s*(from profiler[\w.]* import [^\n#]+|import profiler[\w.]*)", re.M)


def embedded_imports(path) -> list[str]:
    return [m.group(1).strip() for _, body in HEREDOC.findall(path.read_text()) for m in IMPORT.finditer(body)]


def test_some_scripts_embed_python_that_imports_the_profiler():
    assert sum(len(embedded_imports(p)) for p in SCRIPTS) >= 3


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_profiler_import_of_a_script_resolves(path):
    for line in embedded_imports(path):
        exec(line, {})  # raises ImportError naming what is gone
