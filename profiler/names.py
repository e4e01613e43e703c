"""Names from reports, manifests and run.json -> file names and links, through one door.

Kernel keys come from NVTX range names and ncu's function names, run ids from the command line:
any text at all. Whatever becomes a path component or a link target passes through `slug`, so
no name can climb out of its folder (`../x`, `/abs`), hide (`.x`), overwrite a report's own files
(`index`), or become a link scheme (`javascript:`); and two different names never share a file.
"""

from __future__ import annotations

import hashlib
import re

from .errors import GemmprofError

# A plain name is kept as it is: these characters only, no leading dot, at most MAX_SLUG long.
# '+' is left out of plain names on purpose: it marks the hash suffix of a cleaned name, so a
# plain name can never equal the slug of another name.
_PLAIN = re.compile(r"[A-Za-z0-9_.-]+")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
MAX_SLUG = 96
HASH_CHARS = 12  # 48 bits of SHA-256: a collision needs about 16 million crafted names
# Names a report writes itself ("index.html", "summary.md"): a kernel may not take them.
RESERVED = frozenset({"index", "summary", "report", "ncu"})


def is_plain(name: str) -> bool:
    """True when `name` is its own slug: safe as a file name and a relative link as it is."""
    return (
        bool(_PLAIN.fullmatch(name))
        and len(name) <= MAX_SLUG
        and not name.startswith(".")
        and name.lower() not in RESERVED
    )


def slug(name: str) -> str:
    """A safe file-name stem (and relative link) for `name`; different names give different slugs.

    A plain name is returned unchanged. Any other is cleaned (runs of other characters become
    '-', the result bounded) and gets '+' and a hash of the original appended."""
    name = str(name)
    if is_plain(name):
        return name
    cleaned = _UNSAFE.sub("-", name).strip("-.")[: MAX_SLUG - HASH_CHARS - 1] or "name"
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_CHARS]
    return f"{cleaned}+{digest}"


def check_run_id(run_id: str) -> str:
    """A run id names a folder under --out: it must be plain, or the command stops here."""
    if not is_plain(run_id):
        shown = run_id if len(run_id) <= 60 else run_id[:57] + "..."
        raise GemmprofError(
            f"--run-id {shown!r} is not a plain folder name",
            f"use letters, digits, '.', '_' and '-' only, at most {MAX_SLUG} characters, not starting with '.'",
        )
    return run_id


# Link targets a report may hold: a page of the report itself, or a web page.
_WEB = re.compile(r"https?://[^\s/]", re.IGNORECASE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def safe_href(target: str) -> str | None:
    """`target` if it is an http(s) URL or a relative link that stays inside the report, else None
    (the caller shows the text without a link): no javascript:, data:, file:, vbscript:, no
    protocol-relative //host, no absolute path, no '..'."""
    target = str(target).strip()
    if any(ord(c) < 0x20 or c.isspace() for c in target) or not target:
        return None
    if _WEB.match(target):
        return target
    if _SCHEME.match(target) or target.startswith(("/", "\\")):
        return None
    if ".." in re.split(r"[/\\]", target.split("#", 1)[0]):
        return None
    return target


__all__ = ["MAX_SLUG", "RESERVED", "check_run_id", "is_plain", "safe_href", "slug"]
