"""The argc dialect: a shell script whose comment tags declare its arguments for sigoden/argc.

    #!/usr/bin/env bash
    # @describe Search the web
    # @option --query! <TEXT>   What to search for
    # @option --count=5 <INT>   How many results
    # @flag   --verbose         Say more
    # @env    LLM_OUTPUT=/dev/stdout
    main() { ...; echo "$argc_query" >> "$LLM_OUTPUT"; }
    eval "$(argc --argc-eval "$0" "$@")"

The file is read as text (`runtimes/argc/tags.py`), never run. Parameters are named
after argc's ids with `-` as `_` (`--string-enum` is `string_enum`, as llm-functions
declares it); a script with `@cmd` functions is one tool per function
(`conventions/argc/commands.py`). At run time `runtimes/argc/shim.py`
answers the script's `argc --argc-eval` (docs/dialects.md, "The argc dialect").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from toolkiln.conventions.argc.commands import command_declarations
from toolkiln.conventions.argc.params import env_warnings, parameters_of
from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe
from toolkiln.errors import DiscoveryError
from toolkiln.runtimes.argc.tags import calls_argc, has_tags, parse_script

if TYPE_CHECKING:
    pass

CLAIM_IS_CERTAIN = True

_TAGGED = re.compile(r"^[ \t]*#[ \t]*@(describe|cmd|option|flag|arg)\s", re.MULTILINE)
# argc has no types; these value notations are how llm-functions (and people) say one.
TASK_FILES = {"argcfile.sh", "argcfile"}


def claims(candidate: Candidate) -> bool:
    """A text file with an argc tag (`# @describe`, `@cmd`, `@option`, `@flag`, `@arg`)."""
    return bool(candidate.head) and _TAGGED.search(candidate.head) is not None


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    path = candidate.relative_path
    if candidate.path.name.lower() in TASK_FILES:
        raise NotATool(
            "is an argc task file (Argcfile.sh): argc runs its tasks from the project folder, "
            "they are not tools; copy a task into a script of its own to serve it",
            kind="argc-taskfile",
        )
    text = candidate.text()
    if not calls_argc(text):
        raise NotATool(
            "has argc comment tags but never hands its arguments to argc (no "
            '`eval "$(argc --argc-eval "$0" "$@")"`)',
            kind="argc-no-eval",
        )
    return declarations_of(text, path)


def declarations_of(text: str, path: str) -> list[Declaration]:
    """The tool an argc script declares; `path` names the file in errors."""
    if not has_tags(text):
        raise NotATool("calls argc but declares nothing with argc's comment tags", kind="argc-no-tags")
    script = parse_script(text)
    if script.problems:
        line, message = script.problems[0]
        raise DiscoveryError(message, path=path, line=line)
    warnings = env_warnings(script.root.find("env"), path)
    parameters = parameters_of(script.root, path, warnings)
    visible = [c for c in script.commands if not c.name.startswith("_") and "::" not in c.name]
    for command in script.commands:
        if command not in visible and "::" in command.name:
            warnings.append(
                DiscoveryError(
                    f"the nested subcommand {command.name!r} is not served "
                    "(toolkiln serves one level of @cmd)",
                    path=path,
                    line=command.line,
                )
            )
    if visible:
        return command_declarations(script, visible, parameters, path, warnings)
    declaration = Declaration(
        dialect="argc",
        description=script.root.describe.strip(),
        parameters=parameters,
        version=script.version,
        warnings=warnings,
    )
    return [declaration]
