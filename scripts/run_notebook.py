"""Execute a notebook end to end in a Jupyter kernel (nbclient) and print what its cells printed:
the check that the notebook API works where users run it.

    python3 scripts/run_notebook.py tests/programs/profile_function.ipynb [EXECUTED.ipynb]
"""

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def main(path: str, executed: str | None = None) -> int:
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": "."}}).execute()
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            if text:
                print(text if isinstance(text, str) else "".join(text), end="" if str(text).endswith("\n") else "\n")
    if executed:
        nbformat.write(notebook, executed)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
