"""`toolkiln init`: a ready project folder, made of the pieces it lacks.

A project is a folder with `tools/` (the scripts) and `config/` (what toolkiln writes,
and the per-tool configs the user edits). `create_project` adds what is missing: the two
folders, a starter tool (shipped in `toolkiln/starter/`) when `tools/` is new, and a
`.gitignore` for the files toolkiln generates. It never replaces a file: what exists is
kept and reported. A folder that holds other things and is not yet a project is refused
unless the caller says to merge, so that `init` in the wrong folder writes nothing.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from toolkiln.errors import ToolkilnError

logger = logging.getLogger(__name__)

STARTER_DIR = Path(__file__).resolve().parent / "starter"
STARTER_TOOL = "now"  # starter/tools/now/run.sh
# What toolkiln writes into a project, and what git should not track: the compiled
# tools.json, the discovery index, the audit logs. The per-tool configs (config/tools/,
# config/prompts/, config/resources/) are the user's edits: they are committed.
GENERATED = ("config/tools.json", "config/.discovery.json", "config/logs/")
# And the secrets of the tools (dotenv_file.py), which must never be committed.
IGNORED = (*GENERATED, ".env")
GITIGNORE = "# Written by toolkiln (toolkiln build, discover and serve); rebuilt at will.\n" + "".join(
    f"/{path}\n" for path in IGNORED
)


class ProjectError(ToolkilnError):
    """A folder `init` will not write into."""


@dataclass
class ProjectReport:
    """What `create_project` did, relative to the project folder."""

    root: Path
    created: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    missing_ignores: list[str] = field(default_factory=list)  # lines a kept .gitignore lacks


def is_project(folder: Path) -> bool:
    """A toolkiln project: a folder with both `tools/` and `config/`."""
    return (folder / "tools").is_dir() and (folder / "config").is_dir()


def create_project(root: Path, *, merge: bool = False) -> ProjectReport:
    """Make `root` a project, adding only what it lacks.

    `root` may be missing (it is made), empty (hidden files such as `.git/` aside), or
    already hold `tools/` or `config/`. Any other folder raises `ProjectError` unless
    `merge`. Raises `ProjectError` when a piece exists but is not what it should be (a
    file named `tools`).
    """
    if root.exists() and not root.is_dir():
        raise ProjectError(f"{root} is a file: toolkiln init needs a folder")
    if root.is_dir() and not merge and not _may_hold_a_project(root):
        raise ProjectError(
            f"{root.absolute()} is not empty and has no tools/ or config/ folder, so it is not a toolkiln "
            f"project: run `toolkiln init {root / 'mcp-tools'}` for a new folder, or "
            "`toolkiln init --merge` to add the project's pieces here (nothing is overwritten)"
        )
    if merge and root.is_dir() and not (root / "tools").exists():
        scripts = scripts_in(root)
        if scripts:
            shown = ", ".join(scripts[:3]) + (f" and {len(scripts) - 3} more" if len(scripts) > 3 else "")
            raise ProjectError(
                f"{root.absolute()} holds scripts ({shown}) and no tools/ folder: as a project, only "
                "tools/ is served, so these scripts would no longer be. Serve the folder as it is "
                f"(toolkiln writes nothing into it): toolkiln serve {root}; or move the scripts into "
                f"{root / 'tools'}/ first, then run toolkiln init --merge again"
            )
    report = ProjectReport(root)
    root.mkdir(parents=True, exist_ok=True)
    tools_is_new = _make_folder(root, "tools", report)
    _make_folder(root, "config", report)
    if tools_is_new:
        _copy_tree(STARTER_DIR / "tools", root / "tools", report)
    _write_gitignore(root, report)
    return report


SCRIPT_SUFFIXES = frozenset(
    {".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php"}
)


def scripts_in(folder: Path) -> list[str]:
    """The names of the scripts at the top of `folder` (what `toolkiln serve DIR` would
    serve): executable files, and files named or started (`#!`) as scripts are."""
    found = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(".") or not entry.is_file():
            continue
        if entry.suffix in SCRIPT_SUFFIXES or os.access(entry, os.X_OK) or _starts_with_shebang(entry):
            found.append(entry.name)
    return found


def _starts_with_shebang(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False


def _may_hold_a_project(root: Path) -> bool:
    """Empty (but for hidden files: a fresh `git init`), or a project already begun."""
    names = {entry.name for entry in root.iterdir()}
    return not {name for name in names if not name.startswith(".")} or bool(names & {"tools", "config"})


def _make_folder(root: Path, name: str, report: ProjectReport) -> bool:
    """Make `root/name`; whether it was made (False: kept as it was)."""
    folder = root / name
    if folder.is_dir():
        report.kept.append(f"{name}/")
        return False
    if folder.exists() or folder.is_symlink():
        raise ProjectError(f"{folder} exists and is not a folder: move it away, then run toolkiln init again")
    folder.mkdir()
    report.created.append(f"{name}/")
    return True


def _copy_tree(source: Path, target: Path, report: ProjectReport) -> None:
    """Copy the starter files that are not there yet; scripts keep their run bit."""
    for path in sorted(source.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts:
            continue
        relative = path.relative_to(source)
        destination = target / relative
        name = (target.relative_to(report.root) / relative).as_posix()
        if destination.exists() or destination.is_symlink():
            report.kept.append(name)
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)
        if path.suffix in {".sh", ".py", ".js"} or os.access(path, os.X_OK):
            mode = stat.S_IMODE(destination.stat().st_mode)
            destination.chmod(mode | stat.S_IXUSR | (mode & 0o044) >> 2)  # x wherever r is
        report.created.append(name)
        logger.info("created %s", destination)


def _write_gitignore(root: Path, report: ProjectReport) -> None:
    path = root / ".gitignore"
    try:
        with path.open("x", encoding="utf-8") as handle:
            handle.write(GITIGNORE)
    except FileExistsError:
        report.kept.append(".gitignore")
        try:
            lines = {line.strip() for line in path.read_text(encoding="utf-8").splitlines()}
        except (OSError, UnicodeDecodeError):
            lines = set()
        report.missing_ignores = [
            f"/{entry}" for entry in IGNORED if f"/{entry}" not in lines and entry not in lines
        ]
        return
    report.created.append(".gitignore")
