"""Where a measurement came from, recorded with it: the environment (GPU, driver, tools, gemmprof
and Python versions) and the git commit and tree of the checkout, for a run's run.json."""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
from dataclasses import asdict
from pathlib import Path

from ..errors import GemmprofError
from .device import gpu_fields_nvml, gpu_info
from ..tools import counters_permitted, find_ncu, ncu_version, nvcc_version


def git_commit(repo: Path | None) -> tuple[str | None, bool]:
    """HEAD commit of the checkout and whether it has uncommitted changes. A copy of the tree
    whose .git is missing or stale (a CI artifact, the GPU machine, which was sent the session's
    first .git) names its commit in GEMMPROF_GIT_COMMIT, which then wins. No checkout (`repo`
    None: gemmprof installed) has no commit; the git repository around the current directory
    is the user's, not gemmprof's."""
    if os.environ.get("GEMMPROF_GIT_COMMIT"):
        return os.environ["GEMMPROF_GIT_COMMIT"], False
    if repo is None:
        return None, False
    head = _git(repo, "rev-parse", "HEAD", timeout=10)
    if head is None:
        return None, False
    dirty = _git(repo, "status", "--porcelain", "--untracked-files=no", timeout=10)
    return head.decode().strip(), bool((dirty or b"").strip())


def git_fields(repo: Path | None) -> dict:
    """run.json's git fields: the commit, whether the tree differs from it, and the tree itself."""
    commit, dirty = git_commit(repo)
    return {"git_commit": commit, "git_dirty": dirty, "git_tree": git_tree(repo)}


def _git(repo: Path, *args: str, stdin: bytes | None = None, timeout: float = 60) -> bytes | None:
    """git's output in `repo`, or None when git is missing, fails or takes too long."""
    try:
        done = subprocess.run(["git", *args], cwd=repo, input=stdin, capture_output=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return None if done.returncode else done.stdout


def git_tree(repo: Path | None) -> str | None:
    """The id of the tree git would commit from the working tree now (`git add -A; git write-tree`):
    tracked files as they are on disk, untracked ones git does not ignore, deleted ones left out;
    computed without writing to the repository. A checkout whose .git is stale (the GPU machine
    is sent the session's first .git) records the session's first commit, dirty; this id names
    the files that actually ran: `git log --all --format='%H %T'` finds the commit that has them."""
    if repo is None:
        return None
    listed = _git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate")
    staged = _git(repo, "ls-files", "-z", "-s")
    algorithm = (_git(repo, "rev-parse", "--show-object-format") or b"sha1").decode().strip()
    if listed is None or staged is None or algorithm not in ("sha1", "sha256"):
        return None
    gitlinks = {}  # submodules: the commit the index holds
    for entry in staged.split(b"\0"):
        if entry.startswith(b"160000 "):
            meta, path = entry.split(b"\t", 1)
            gitlinks[path.decode()] = bytes.fromhex(meta.split()[1].decode())
    paths = [p.decode() for p in listed.split(b"\0") if p]
    files = {}  # path -> (mode, id)
    regular = []
    for path in paths:
        full = Path(repo) / path
        if path in gitlinks:
            files[path] = ("160000", gitlinks[path])
        elif full.is_symlink():
            files[path] = ("120000", _object_id(algorithm, b"blob", os.readlink(full).encode()))
        elif full.is_file():
            regular.append(path)
    if regular:  # one process hashes them all, through the repository's filters, as `git add` would
        ids = _git(repo, "hash-object", "--stdin-paths", stdin="\n".join(regular).encode())
        if ids is None:
            return None
        for path, hexid in zip(regular, ids.decode().split()):
            mode = "100755" if os.access(Path(repo) / path, os.X_OK) else "100644"
            files[path] = (mode, bytes.fromhex(hexid))
    return _tree_id(algorithm, files).hex()


def _object_id(algorithm: str, kind: bytes, body: bytes) -> bytes:
    return hashlib.new(algorithm, kind + b" %d\0" % len(body) + body).digest()


def _tree_id(algorithm: str, files: dict[str, tuple[str, bytes]]) -> bytes:
    """Git's tree object over {path: (mode, id)}: entries sorted by name, a directory's name as
    if it ended in '/'; a directory is its own tree, hashed first."""
    here: dict[str, tuple[str, bytes]] = {}
    below: dict[str, dict[str, tuple[str, bytes]]] = {}
    for path, entry in files.items():
        head, _, rest = path.partition("/")
        if rest:
            below.setdefault(head, {})[rest] = entry
        else:
            here[head] = entry
    entries = [(name, mode, oid) for name, (mode, oid) in here.items()]
    entries += [(name, "40000", _tree_id(algorithm, sub)) for name, sub in below.items()]
    entries.sort(key=lambda e: e[0].encode() + (b"/" if e[1] == "40000" else b""))
    body = b"".join(mode.encode() + b" " + name.encode() + b"\0" + oid for name, mode, oid in entries)
    return _object_id(algorithm, b"tree", body)


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def collect_environment(ncu: str | None = None, need_gpu: bool = False, nvml_only: bool = False) -> dict:
    """Everything that matters for reproducing a measurement, as a flat dict. Without a GPU the
    GPU fields are absent and `gpu_error` says why (unless `need_gpu`, which raises instead).
    `nvml_only`: skip the CUDA/cuBLAS probe when NVML answers (the caller's child processes
    report the rest)."""
    import platform
    from concurrent.futures import ThreadPoolExecutor

    from .. import __version__

    env: dict = {"gemmprof_version": __version__, "python": platform.python_version(), "host": platform.node()}
    exe = find_ncu(ncu)
    with ThreadPoolExecutor(max_workers=2) as tools:  # two `--version` runs while the GPU is asked
        versions = tools.submit(ncu_version, exe), tools.submit(nvcc_version)
        _gpu_fields(env, need_gpu, nvml_only)
    env["ncu_path"] = str(exe) if exe else None
    env["ncu_version"] = versions[0].result()
    permitted, why = counters_permitted()
    env["counters_permitted"] = permitted
    env["counters_permitted_why"] = why
    env["nvcc_version"] = versions[1].result()
    return env


def _gpu_fields(env: dict, need_gpu: bool, nvml_only: bool) -> None:
    light = gpu_fields_nvml() if nvml_only else None
    if light is not None:
        env.update(light)
    else:
        try:
            info = gpu_info()
        except GemmprofError as exc:
            if need_gpu:
                raise
            env["gpu_error"] = str(exc)
        else:
            fields = asdict(info)
            fields["gpu_name"] = fields.pop("name")
            fields["gpu_memory_bytes"] = fields.pop("memory_bytes")
            fields["compute_capability"] = "{}.{}".format(*info.compute_capability)
            env.update(fields, arch=info.arch, gpu_slug=info.slug)
