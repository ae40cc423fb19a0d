"""Walk the tools folder and offer each file, once, to the readers in order."""

from __future__ import annotations

import logging
import os
import stat as stat_module
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from toolkiln.containment import escape_reason
from toolkiln.conventions.base import Candidate, Reader
from toolkiln.conventions.naming import ENTRY_POINT
from toolkiln.discover.report import NotTool
from toolkiln.discover.sources import DEFAULT_WORKSPACE_NAME, SourceFence
from toolkiln.errors import DiscoveryError
from toolkiln.writable import WritableFolders

logger = logging.getLogger(__name__)

MAX_DEPTH = 5  # folders below the tools folder, as in seeds/000
SKIPPED_FOLDERS = {"__pycache__", "node_modules", "TEMPLATE", "venv", "site-packages"}


Claimant = Callable[[Candidate], Reader | None]


def scan_tools(
    tools_dir: Path,
    claimant: Claimant,
    skipped: list[DiscoveryError] | None = None,
    fence: SourceFence | None = None,
    left_out: list[NotTool] | None = None,
) -> Iterator[tuple[Candidate, Reader | None]]:
    """Yield each file with the reader that claims it (None: no reader does), in a
    stable order. `claimant` names it: `first_claimant`, or one that may know it
    without asking (see `index.py`).

    A folder whose `run.sh` is claimed is one tool: its other files and subfolders
    are that tool's implementation and are not offered again (seeds/003). A file that
    cannot be looked at (a symlink loop or one to nothing, a FIFO, a device) is left
    out, and said so in `skipped`. A folder a tool may write (`fence`), and a symlink
    into one, is never read: it is no source of tools (a client could have written its
    files), and is said so in `left_out`.
    """
    skipped = [] if skipped is None else skipped
    left_out = [] if left_out is None else left_out
    fence = fence or SourceFence(WritableFolders(()), frozenset())
    root = str(tools_dir)
    if _fenced(fence.refusal(tools_dir, ""), left_out):
        return
    for folder, subfolders, files in os.walk(tools_dir):
        here = Path(folder)
        prefix = folder[len(root) + 1 :] + "/" if folder != root else ""  # relative, POSIX, as a string
        depth = prefix.count("/")
        subfolders[:] = sorted(name for name in subfolders if _wanted_folder(here / name, depth))
        candidates: list[Candidate] = []
        for name in sorted(files):
            found = _candidate(tools_dir, here / name, prefix + name, skipped)
            if found is not None and not (
                found[1] and _fenced(fence.link_refusal(found[0], tools_dir), left_out)
            ):
                candidates.append(found[0])
        claims = {c.path.name: claimant(c) for c in candidates if c.path.name in FOLDER_ENTRY_POINTS}
        entry = next((name for name in FOLDER_ENTRY_POINTS if _makes_one_tool(name, claims.get(name))), None)
        if entry is not None:
            subfolders.clear()
            yield next(c for c in candidates if c.path.name == entry), claims[entry]
            continue
        claims.update((c.path.name, claimant(c)) for c in candidates if c.path.name not in claims)
        new_tools = [c.relative_path for c in candidates if claims[c.path.name] is not None]
        workspace = fence.default_workspace(here, prefix, new_tools)
        subfolders[:] = [
            name
            for name in subfolders
            if not _fenced(fence.refusal(here / name, f"{prefix}{name}/", real=_real(here / name)), left_out)
            and not (name == DEFAULT_WORKSPACE_NAME and _fenced(workspace, left_out))
        ]
        for candidate in candidates:
            yield candidate, claims[candidate.path.name]


def _real(folder: Path) -> Path | None:
    """`folder` itself when it is no symlink: the walk starts at the resolved tools folder
    and descends into no symlink, so it is then its own resolved path (one lstat, where a
    realpath costs one per part of the path); None for a symlink (to be resolved)."""
    return None if os.path.islink(folder) else folder


def _fenced(refusal: NotTool | None, left_out: list[NotTool]) -> bool:
    """Whether a folder or file is left out (said in `left_out`)."""
    if refusal is None:
        return False
    left_out.append(refusal)
    return True


# A folder whose entry point one of these readers claims for certain is one tool:
# `run.sh` with a declaration (seeds/003), and mcp-bash-framework's `tool.sh` beside its
# `tool.meta.json` (its other files are the tool's own: helpers, a smoke test).
# A project whose pyproject.toml or package.json names commands is those commands
# (conventions/entry_points): its modules, tests and docs are not tools of their own.
FOLDER_ENTRY_POINTS = {
    ENTRY_POINT: None,
    "tool.sh": "toolkiln.conventions.sidecar.read",
    "pyproject.toml": "toolkiln.conventions.entry_points.reader",
    "package.json": "toolkiln.conventions.entry_points.reader",
}


def _makes_one_tool(name: str, reader: Reader | None) -> bool:
    if reader is None or not reader.CLAIM_IS_CERTAIN:
        return False
    only = FOLDER_ENTRY_POINTS[name]
    return only is None or getattr(reader, "__name__", "") == only


def _wanted_folder(path: Path, depth: int) -> bool:
    name = path.name
    if name.startswith(".") or name in SKIPPED_FOLDERS or (path / "pyvenv.cfg").exists():
        return False
    if depth >= MAX_DEPTH:
        logger.warning("%s: deeper than %d folders below the tools folder; not searched", path, MAX_DEPTH)
        return False
    return True


def _candidate(
    tools_dir: Path, path: Path, relative_path: str, skipped: list[DiscoveryError]
) -> tuple[Candidate, bool] | None:
    """The file as a candidate, and whether it is a symlink: one lstat for a file (the
    walk's files are mostly plain ones, whose lstat is their stat), a stat more for a link."""
    if path.name.startswith("."):
        return None
    try:
        stat = os.lstat(path)
    except FileNotFoundError:  # vanished mid-walk
        return None
    except OSError as error:  # a folder we may not search
        skipped.append(DiscoveryError(f"cannot be read ({error.strerror}); skipped", path=relative_path))
        return None
    link = stat_module.S_ISLNK(stat.st_mode)
    if link and (reason := escape_reason(tools_dir, relative_path)):
        # Never read nor probed: build would refuse it, and it may be any program on the machine.
        skipped.append(DiscoveryError(f"skipped: {reason}", path=relative_path))
        return None
    if link:
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            skipped.append(DiscoveryError("is a symlink to nothing; skipped", path=relative_path))
            return None
        except OSError as error:  # a symlink loop
            skipped.append(DiscoveryError(f"cannot be read ({error.strerror}); skipped", path=relative_path))
            return None
    if not stat_module.S_ISREG(stat.st_mode):
        skipped.append(
            DiscoveryError("is not a regular file (a FIFO, socket or device); skipped", path=relative_path)
        )
        return None
    return Candidate(path=path, relative_path=relative_path, stat=stat), link


def first_claimant(candidate: Candidate, readers: Sequence[Reader]) -> Reader | None:
    """The first reader that claims `candidate`, in the order given."""
    return next((reader for reader in readers if reader.claims(candidate)), None)
