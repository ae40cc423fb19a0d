"""Stage 1 for prompts and resources: the files under `prompts/` and `resources/`, one
config each under `config/prompts/` and `config/resources/`.

The same rules as tools: incremental (a file whose fingerprint matches is not read),
what the user set is kept, a broken file is reported with its line and keeps its last
good config, and a config whose file is gone is reported, not deleted. As for tools, a
run that finds nothing changed reads the configs as plain JSON, without the models.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from toolkiln.conventions.naming import item_name_for
from toolkiln.discover.fingerprint import fingerprint_file, is_unchanged, same_content, unchanged_config
from toolkiln.discover.prompts import SUFFIXES, parse_prompt
from toolkiln.discover.resources import detect_content
from toolkiln.errors import ConfigError, DiscoveryError
from toolkiln.files import load_model, write_model
from toolkiln.invisible import escape_invisible
from toolkiln.vocabulary import USER_PROMPT_KEYS, USER_RESOURCE_KEYS

if TYPE_CHECKING:
    from pydantic import BaseModel

    from toolkiln.model import PromptConfig, PromptSettings, ResourceConfig, ResourceSettings

    ItemConfig = PromptConfig | ResourceConfig

MAX_DEPTH = 5


@dataclass(frozen=True)
class ItemKind:
    kind: Literal["prompt", "resource"]
    config_folder: str
    model_name: Literal["PromptConfig", "ResourceConfig"]  # in toolkiln.model, loaded when needed
    block: str  # the settings key in the config file
    path_key: str  # the settings key that holds the file's path
    user_keys: tuple[str, ...]
    accepts: Callable[[Path], bool]
    declare: Callable[[Path, str, str], BaseModel]  # (file, relative path, name) -> settings

    @property
    def model(self) -> type[PromptConfig] | type[ResourceConfig]:
        import toolkiln.model

        model: type[PromptConfig] | type[ResourceConfig] = getattr(toolkiln.model, self.model_name)
        return model


def _declare_prompt(path: Path, relative: str, name: str) -> PromptSettings:
    from toolkiln.model import PromptSettings

    declaration = parse_prompt(path.read_text(encoding="utf-8"), relative)
    # Words the model reads in prompts/list, shown as the reviewer sees them (toolkiln.invisible).
    arguments, asks = (
        [p.model_copy(update={"description": escape_invisible(p.description)}) for p in group]
        for group in (declaration.arguments, declaration.asks)
    )
    return PromptSettings(
        name=name,
        description=escape_invisible(declaration.description),
        declared_title=declaration.title and escape_invisible(declaration.title),
        arguments=arguments,
        asks=asks,
        template_path=relative,
    )


def _declare_resource(path: Path, relative: str, name: str) -> ResourceSettings:
    from toolkiln.model import ResourceSettings

    mime_type, binary = detect_content(path)
    return ResourceSettings(name=name, file_path=relative, detected_mime_type=mime_type, binary=binary)


PROMPTS = ItemKind(
    "prompt", "prompts", "PromptConfig", "prompt_config", "template_path", USER_PROMPT_KEYS,
    lambda path: path.suffix.lower() in SUFFIXES, _declare_prompt,
)  # fmt: skip
RESOURCES = ItemKind(
    "resource", "resources", "ResourceConfig", "resource_config", "file_path", USER_RESOURCE_KEYS,
    lambda path: True, _declare_resource,
)  # fmt: skip


@dataclass(frozen=True)
class ItemStatus:
    name: str
    path: str
    change: Literal["created", "updated", "unchanged", "missing", "failed"]


def discover_items(
    kind: ItemKind, source_dir: Path, config_dir: Path, *, force: bool = False, write: bool = True
) -> tuple[list[ItemStatus], list[DiscoveryError]]:
    """The statuses of the items of one kind, and what could not be read."""
    statuses: list[ItemStatus] = []
    errors: list[DiscoveryError] = []
    configs = config_dir / kind.config_folder
    seen: dict[str, str] = {}
    for path, relative in _files(source_dir, kind):
        name = item_name_for(relative, keep_suffix=kind is RESOURCES)
        if name in seen:
            errors.append(
                DiscoveryError(f"both {seen[name]} and {relative} would be the {kind.kind} {name!r}")
            )
            continue
        seen[name] = relative
        config_file = configs / f"{name}.json"
        stat = path.stat()
        if not force and unchanged_config(config_file, path, stat, relative, (kind.block, kind.path_key)):
            statuses.append(ItemStatus(name, relative, "unchanged"))
            continue
        try:
            existing = load_model(config_file, kind.model) if config_file.exists() else None
        except ConfigError as error:
            errors.append(
                DiscoveryError(f"{error}\n  (fix the file or delete it to rediscover the {kind.kind})")
            )
            continue
        if (
            not force
            and existing
            and _path_of(kind, existing) == relative
            and is_unchanged(path, stat, existing.source)
        ):
            statuses.append(ItemStatus(name, relative, "unchanged"))
            continue
        try:
            settings = kind.declare(path, relative, name)
        except DiscoveryError as error:
            errors.append(error)
            statuses.append(ItemStatus(name, relative, "failed"))
            continue
        except (OSError, UnicodeDecodeError, ValueError) as error:
            errors.append(DiscoveryError(str(error), path=relative))
            statuses.append(ItemStatus(name, relative, "failed"))
            continue
        fresh: dict[str, Any] = {kind.block: settings, "source": fingerprint_file(path, stat)}
        config = kind.model.model_validate(
            {**fresh, "last_modified": datetime.now(UTC).isoformat(timespec="seconds")}
        )
        config = _keep_user_keys(kind, config, existing)
        if existing is not None and same_content(config, existing):
            statuses.append(ItemStatus(name, relative, "unchanged"))
            continue
        if write:
            write_model(config_file, config)
        statuses.append(ItemStatus(name, relative, "updated" if existing else "created"))
    if configs.is_dir():
        for config_file in sorted(configs.glob("*.json")):
            if config_file.stem not in seen:
                statuses.append(ItemStatus(config_file.stem, "?", "missing"))
    return sorted(statuses, key=lambda status: status.name), errors


def _files(source_dir: Path, kind: ItemKind) -> Iterator[tuple[Path, str]]:
    if not source_dir.is_dir():
        return
    for folder, subfolders, files in os.walk(source_dir):
        here = Path(folder)
        depth = len(here.relative_to(source_dir).parts)
        subfolders[:] = sorted(name for name in subfolders if not name.startswith(".") and depth < MAX_DEPTH)
        for name in sorted(files):
            path = here / name
            if not name.startswith(".") and path.is_file() and kind.accepts(path):
                yield path, path.relative_to(source_dir).as_posix()


def _path_of(kind: ItemKind, config: ItemConfig) -> str:
    return str(getattr(getattr(config, kind.block), kind.path_key))


def _keep_user_keys(kind: ItemKind, config: ItemConfig, existing: ItemConfig | None) -> ItemConfig:
    if existing is None:
        return config
    old = getattr(existing, kind.block)
    settings = getattr(config, kind.block).model_copy(
        update={key: getattr(old, key) for key in kind.user_keys}
    )
    return config.model_copy(
        update={kind.block: settings, "enabled": existing.enabled, "tags": existing.tags}
    )
