"""The diagnostic report: a `RunDiagnosis` -> Markdown and self-contained HTML pages.

One template set (`templates/kernel.j2`, `templates/index.j2`) holds the prose and the page
structure for both formats; `templates/md.j2` and `templates/html.j2` implement the same small
set of macros (headings, tables, call-outs, code listings, ...) for each. This module puts the
pages together: view models from `views`, templates from `templating`, figures from `figures`;
it returns strings and never writes files. Figures are embedded as data: URIs, so an HTML page
stands alone.
"""

from __future__ import annotations

import json
from typing import Iterator

import pandas as pd
from markupsafe import Markup

from ..analyze.diagnosis_record import Diagnosis, RunDiagnosis, diagnosis_records
from ..names import slug
from .figures import data_uri_and_close, index_figures, kernel_figures
from .templating import render
from .views import index_view, kernel_view

# Version of diagnosis.json's layout; readers check it.
DIAGNOSIS_SCHEMA_VERSION = 1


def render_kernel(d: Diagnosis, run: RunDiagnosis, fmt: str, figures: dict[str, str] | None = None) -> str:
    """A kernel's page. `figures` maps 'stalls'/'traffic' to image URIs (HTML only)."""
    view = kernel_view(d, run)
    body = render("kernel.j2", fmt, v=view, run=run, figures=figures or {})
    if fmt == "md":
        return body
    return render("page.html.j2", "html", title=f"{d.name}: gemmprof diagnosis", body=Markup(body))


def render_index(run: RunDiagnosis, fmt: str, charts: dict[str, str] | None = None,
                 warnings: list[str] | None = None) -> str:
    """The run index: index.html (fmt 'html') or summary.md (fmt 'md', fits a CI job summary)."""
    view = index_view(run)
    body = render("index.j2", fmt, v=view, charts=charts or {}, warnings=[*run.warnings, *(warnings or [])])
    if fmt == "md":
        return body
    gpu = view["gpu"] or "GPU"
    scope = f"suite {view['suite']['name']}" if view["suite"] else view["shape"]
    return render("page.html.j2", "html", title=f"gemmprof report: {gpu}, {scope}", body=Markup(body))


def report_files(run: RunDiagnosis, kernels: pd.DataFrame | None = None, bench: pd.DataFrame | None = None
                 ) -> Iterator[tuple[str, str]]:
    """(file name, content) of every file of the report, kernel pages first, then index.html and
    summary.md. `kernels` and `bench` are the run's tables, for the index charts."""
    for d in run.kernels:
        figures = {name: data_uri_and_close(fig) for name, fig in kernel_figures(d).items()}
        yield f"{slug(d.name)}.html", render_kernel(d, run, "html", figures)
        yield f"{slug(d.name)}.md", render_kernel(d, run, "md")
    charts, problems = index_figures(kernels, bench, run.suite)
    uris = {name: data_uri_and_close(fig) for name, fig in charts.items()}
    yield "index.html", render_index(run, "html", uris, problems)
    yield "summary.md", render_index(run, "md", warnings=problems)
    yield "diagnosis.json", diagnosis_json(run)


def diagnosis_json(run: RunDiagnosis) -> str:
    """`diagnosis.json`: the run's verdicts as plain records (`diagnosis_record.diagnosis_records`), for CI
    and scripts; the shape and schema version on top."""
    return json.dumps({"schema_version": DIAGNOSIS_SCHEMA_VERSION, "shape": list(run.shape) if run.shape else None,
                       "kernels": diagnosis_records(run)}, indent=2, allow_nan=False) + "\n"


__all__ = ["diagnosis_json", "render_index", "render_kernel", "report_files"]
