"""`toolkiln new`: a new tool, rendered from the template of its dialect.

The templates ship in the package (`toolkiln/templates/`); a project's own `TEMPLATE/`
folder beside its tools folder wins for each dialect it has a template for.

Each template is a working script whose only jinja2 markup is the tool's name (and a
kit tool's display name), so it also works copied by hand. The new file never replaces
an existing one, and its name is checked against the rules discovery names tools by,
so the tool discovery finds is the tool that was asked for.
"""

from __future__ import annotations

import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from toolkiln.conventions.kit.read import slug_name
from toolkiln.conventions.naming import tool_name_for
from toolkiln.discover.scan import SKIPPED_FOLDERS
from toolkiln.errors import ConfigError, ToolkilnError
from toolkiln.files import load_tool_config, tool_configs_dir
from toolkiln.model import TOOL_NAME_PATTERN
from toolkiln.render import render_text

logger = logging.getLogger(__name__)

NewDialect = Literal["annotations", "help-json", "python", "kit"]
PACKAGED_TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"
PROJECT_TEMPLATE_FOLDER = "TEMPLATE"  # beside the tools folder: a project's own templates


@dataclass(frozen=True)
class Template:
    """Where a dialect's template is, where its tool goes, and a call to try it with."""

    source: str  # under the template folder
    target: str  # under the tools folder; {name} is the tool's name
    example: tuple[str, ...]  # KEY=VALUE arguments of `toolkiln call`


TEMPLATES: dict[NewDialect, Template] = {
    "annotations": Template("annotations/run.sh", "{name}/run.sh", ("function=hello", "name=Ada")),
    "help-json": Template("help-json/tool.sh", "{name}.sh", ("name=Ada", "times=2")),
    "python": Template("python/tool.py", "{name}.py", ("name=Ada", "times=2")),
    "kit": Template("kit/tool.js", "{name}.js", ("name=Ada", "times=2")),
}


class ScaffoldError(ToolkilnError):
    """A tool that cannot be created: a bad name, a name taken, a missing template."""


@dataclass(frozen=True)
class NewTool:
    name: str
    dialect: NewDialect
    script: Path  # the file written
    example: tuple[str, ...]
    template: Path  # the template it was rendered from


def create_tool(
    name: str, dialect: NewDialect, tools_dir: Path, config_dir: Path, template_dir: Path | None = None
) -> NewTool:
    """Render the dialect's template as the tool `name` under `tools_dir`, executable.

    Raises `ScaffoldError` when the name breaks the naming rules or is taken, by a file
    under the tools folder or by a tool's config; nothing is written then.
    """
    template = TEMPLATES[dialect]
    relative = template.target.format(name=name)
    check_new_name(name, dialect, relative)
    check_name_is_free(name, tools_dir, config_dir)
    source = template_source(template.source, tools_dir, template_dir)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as error:
        raise ScaffoldError(
            f"{source}: cannot read the template ({error.strerror}); pass --template-dir"
        ) from None
    rendered = render_text(text, {"name": name, "title": title_for(name)}, source=str(source))
    script = tools_dir / relative
    script.parent.mkdir(parents=True, exist_ok=True)
    _write_new_file(script, rendered)
    logger.info("created %s from %s", script, source)
    return NewTool(name=name, dialect=dialect, script=script, example=template.example, template=source)


def template_source(relative: str, tools_dir: Path, template_dir: Path | None = None) -> Path:
    """The template file to render: under `template_dir` when one is given; else the
    project's own (`TEMPLATE/` beside the tools folder) when it has one; else toolkiln's."""
    if template_dir is not None:
        return template_dir / relative
    own = tools_dir.parent / PROJECT_TEMPLATE_FOLDER / relative
    return own if own.is_file() else PACKAGED_TEMPLATE_DIR / relative


def title_for(name: str) -> str:
    """`word-count` -> `Word count`: the display name a kit template's Name gets."""
    words = name.replace("_", " ").replace("-", " ").strip()
    return words[:1].upper() + words[1:]


def check_new_name(name: str, dialect: NewDialect, relative: str) -> None:
    """The name must be one clients accept and the one discovery will give the file."""
    if not TOOL_NAME_PATTERN.match(name):
        raise ScaffoldError(
            f"{name!r} is not a tool name: use 1 to 64 letters, digits, _ and - "
            "(what MCP clients accept), e.g. word-count"
        )
    if name in SKIPPED_FOLDERS or name.startswith("."):
        raise ScaffoldError(f"{name!r} is a folder name discovery skips; choose another name")
    if dialect == "kit" and slug_name(title_for(name)) != name:
        raise ScaffoldError(
            f"{name!r} cannot name a kit tool: a kit tool is named after its Name comment, "
            f"lower-case letters and digits joined by single dashes (e.g. {slug_name(name) or 'my-tool'!r})"
        )
    if tool_name_for(relative) != name:  # a guard: the pattern above should make them equal
        raise ScaffoldError(f"{relative} would be the tool {tool_name_for(relative)!r}, not {name!r}")


def check_name_is_free(name: str, tools_dir: Path, config_dir: Path) -> None:
    """No file under the tools folder is called `name` (whatever its extension), and no
    tool's config holds the name: two tools with one name would fail discovery."""
    if tools_dir.is_dir():
        taken = sorted(
            path for path in tools_dir.iterdir() if path.name == name or path.name.startswith(f"{name}.")
        )
        if taken:
            raise ScaffoldError(
                f"{taken[0]} already exists: `toolkiln new` never overwrites a tool; "
                "choose another name, or remove it first"
            )
    configs = tool_configs_dir(config_dir)
    if not configs.is_dir():
        return
    for path in sorted(configs.glob("*.json")):
        try:
            config = load_tool_config(path)
        except ConfigError:
            continue  # `toolkiln doctor` reports it
        if config.script_config.name == name:
            raise ScaffoldError(
                f"the tool {name!r} already exists ({path}, script {config.script_config.script_path}); "
                "choose another name"
            )


def _write_new_file(path: Path, text: str) -> None:
    """Create `path` with the run bit (mode 0777 less the umask), failing if it exists."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o777)
    except FileExistsError:
        raise ScaffoldError(f"{path} already exists: `toolkiln new` never overwrites a tool") from None
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
        # However tight the umask, the owner may run it.
        os.fchmod(handle.fileno(), stat.S_IMODE(os.fstat(handle.fileno()).st_mode) | stat.S_IRWXU)
