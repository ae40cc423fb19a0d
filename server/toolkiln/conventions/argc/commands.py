"""An argc script with `@cmd` functions: one tool per command.

As llm-functions serves an agent's `tools.sh`, each `@cmd` function is a tool of its
own, with the script's own options and the command's. It is named after the function
in a file named `tools.*` (llm-functions' agents: `fs_cat`, `fs_ls`), else after the
file and the function (`todo.sh`'s `add` is `todo_add`). A script that also has a
`main` (or a `default-subcommand`) is a tool too, under the file's own name: the
command left out.
"""

from __future__ import annotations

import dataclasses
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from toolkiln.conventions.argc.params import env_warnings, parameters_of
from toolkiln.conventions.base import Declaration
from toolkiln.conventions.subcommands import with_file_warnings
from toolkiln.errors import DiscoveryError
from toolkiln.runtimes.argc.tags import Command, Script

if TYPE_CHECKING:
    from toolkiln.model import Parameter

# llm-functions' agents keep their tools in `tools.sh`: each function is named for the model.
AGENT_TOOL_FILES = ("tools",)


def command_declarations(
    script: Script, commands: list[Command], root: list[Parameter], path: str, warnings: list[DiscoveryError]
) -> list[Declaration]:
    named_by_function = PurePosixPath(path).stem in AGENT_TOOL_FILES
    declarations = []
    if "main" in script.functions or any("default-subcommand" in c.metas for c in commands):
        main = Declaration(dialect="argc", description=script.root.describe.strip(), parameters=root)
        declarations.append(main)
    for command in commands:
        warnings += env_warnings(command.find("env"), path)
        own = parameters_of(command, path, warnings)
        taken = {param.name for param in own}
        describe = command.describe.strip() or f"{script.root.describe.strip()} ({command.name})".strip()
        declarations.append(
            Declaration(
                dialect="argc",
                description=describe,
                parameters=[*(param for param in root if param.name not in taken), *own],
                command=command.name,
                name=command.name if named_by_function else None,
            )
        )
    declarations = with_file_warnings(declarations, warnings)
    return [dataclasses.replace(d, version=script.version) for d in declarations]
