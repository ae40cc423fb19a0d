"""`toolkiln serve DIR`: where the folders of a served DIR are.

A project (DIR holds `tools/` and `config/`) is served from its own folders. Any other
folder is a folder of scripts that toolkiln must not write into: its configs go into a
config folder toolkiln owns, one per folder served,

    $XDG_CONFIG_HOME/toolkiln/folders/<name>-<hash>/      (default ~/.config/toolkiln/...)

named after the folder and a hash of its real absolute path (so `~/a/scripts` and
`~/b/scripts` never share one, and a symlink to a folder shares its target's). Every
folder of that path that toolkiln makes is private (0700): the per-tool configs there
decide what a tool may do, so no other user may change them.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from toolkiln.errors import ConfigError
from toolkiln.project import is_project
from toolkiln.state_dir import default_state_dir as toolkiln_config_home

logger = logging.getLogger(__name__)

FOLDERS_DIR = "folders"  # under toolkiln's config folder
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class ServedFolder:
    """The folders to serve DIR from."""

    root: Path  # DIR, resolved
    tools: Path
    config: Path
    prompts: Path
    resources: Path
    owned: bool  # config is toolkiln's own folder (DIR is not a project)


def resolve_served_folder(folder: Path, config_dir: Path | None = None) -> ServedFolder:
    """The folders of DIR. `config_dir`, when given, is where a plain folder's configs go
    instead of toolkiln's own folder (the user asked for it)."""
    try:
        root = folder.expanduser().resolve(strict=True)
    except (OSError, RuntimeError) as error:
        raise ConfigError(
            f"{folder}: cannot open the folder: {getattr(error, 'strerror', None) or error}"
        ) from None
    if not root.is_dir():
        raise ConfigError(
            f"{folder}: not a folder; serve DIR takes a folder of scripts or a toolkiln project"
        )
    if is_project(root):
        return ServedFolder(
            root, root / "tools", config_dir or root / "config", root / "prompts", root / "resources", False
        )
    config = config_dir or prepare_private_dir(owned_config_dir(root))
    # A plain folder is all tools: its prompts and resources, if any, are toolkiln's, beside the configs.
    return ServedFolder(
        root, root, config, config / "prompt-files", config / "resource-files", not config_dir
    )


def owned_config_dir(root: Path) -> Path:
    """toolkiln's config folder for the folder `root` (absolute and resolved)."""
    digest = hashlib.sha256(os.fsencode(root)).hexdigest()[:12]
    name = _UNSAFE.sub("_", root.name).strip("._")[:40] or "root"
    return toolkiln_config_home() / FOLDERS_DIR / f"{name}-{digest}"


def prepare_private_dir(path: Path) -> Path:
    """Make `path` (and the folders above it up to toolkiln's config folder) with mode
    0700, or check that the existing ones are this user's own folders that no one else
    may write into (their mode is narrowed to 0700). Raises `ConfigError` otherwise."""
    home = toolkiln_config_home()
    chain = (
        [path, *path.parents[: len(path.relative_to(home).parts)]] if path.is_relative_to(home) else [path]
    )
    for folder in reversed(chain):
        try:
            folder.mkdir(mode=0o700, parents=folder == chain[-1])
            continue
        except FileExistsError:
            pass
        info = folder.lstat()
        if not stat.S_ISDIR(info.st_mode):
            raise ConfigError(
                f"{folder}: expected toolkiln's own folder, found a symlink or a file; remove it"
            )
        if info.st_uid != os.getuid():
            raise ConfigError(
                f"{folder}: belongs to another user (uid {info.st_uid}); toolkiln keeps a folder's configs "
                "only in a folder of your own: remove it, or pass --config-dir"
            )
        if stat.S_IMODE(info.st_mode) & 0o077:
            os.chmod(folder, 0o700)
            logger.warning("%s was open to other users; its mode is now 700", folder)
    return path
