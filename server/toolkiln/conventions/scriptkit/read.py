"""Script Kit's MCP scripts: a `.js` or `.ts` script with `// mcp: tool-name` metadata.

    // Name: Greeter
    // Description: Greet someone
    // mcp: greeter
    import "@johnlindquist/kit"

    const name = await arg("Your name")
    const style = await arg("Style", ["Formal", "Casual"])
    export default { greeting: `${style === "Formal" ? "Good day" : "Hey"}, ${name}` }

The tool is named after the `mcp:` value (`// mcp: true`: after the Name, else the path);
its parameters are its `arg()` calls in order, or its `params({...})` schema
(scriptkit_args.py). It runs under toolkiln's Script Kit runtime (runtimes/scriptkit:
`@johnlindquist/kit` and Script Kit's globals, with no Script Kit installed), as does a
kit-dialect script that imports `@johnlindquist/kit` or uses its globals (`uses_scriptkit`).
A script that imports Script Kit but has no `mcp:` is an ordinary Script Kit script: Script
Kit does not offer it to MCP clients, and neither does toolkiln.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from toolkiln.conventions.base import Candidate, Declaration, NotATool
from toolkiln.conventions.kit.metadata import all_metadata, slug_name
from toolkiln.conventions.scriptkit.args import arg_parameters, params_call, params_parameters
from toolkiln.errors import DiscoveryError
from toolkiln.interpreters import TYPESCRIPT_SUFFIXES, node_command
from toolkiln.vocabulary import TOOL_NAME_PATTERN

if TYPE_CHECKING:
    from toolkiln.conventions.base import Probe

logger = logging.getLogger(__name__)

SUFFIXES = (".js", ".mjs", ".ts", ".mts")
_MCP = re.compile(r"^[ \t]*//[ \t]*mcp[ \t]*:(?P<value>[^\n]*)$", re.IGNORECASE | re.MULTILINE)
# `import "@johnlindquist/kit"`, `import { x } from "@johnlindquist/kit/..."`,
# `require("@johnlindquist/kit")`: found by the module name, then the words before it
# (back to the last quote or `;`) are read, so each character is looked at a few times
# at most (a pattern that tried each `import` in turn took minutes on a crafted file).
_KIT_MODULE = re.compile(r"""["']@johnlindquist/kit(?:/[^"']*)?["']""")
_IMPORT_WORD = re.compile(r"\bimport")
# Script Kit's globals that only its runtime gives a script (plain node has none of them).
_KIT_GLOBALS = re.compile(
    r"(?<![\w$.])(?:await\s+(?:arg|params|tool|input|env|div|editor|form|fields|select|mini|micro)"
    r"|sendResult|defineSchema)\s*+(?:<[^<>()]*>)?\s*+\("
)
# A script that defines `defineSchema` itself does not use Script Kit's.
_OWN_DEFINE = re.compile(r"\bfunction\s+defineSchema\b|\b(?:const|let|var)\s+defineSchema\s*=")

CLAIM_IS_CERTAIN = True


def claims(candidate: Candidate) -> bool:
    """A JavaScript or TypeScript file with `// mcp:` metadata, or one that imports Script Kit."""
    if candidate.path.suffix.lower() not in SUFFIXES:
        return False
    head = candidate.head
    return _MCP.search(head) is not None or imports_kit(head)


def uses_scriptkit(text: str, suffix: str) -> bool:
    """Whether a script needs Script Kit's runtime: a JavaScript or TypeScript one that
    imports `@johnlindquist/kit` or calls Script Kit's globals (`await arg(`, `params(`,
    `defineSchema(`, `sendResult(`, ...)."""
    if suffix.lower() not in SUFFIXES:
        return False
    if imports_kit(text):
        return True
    return _KIT_GLOBALS.search(text) is not None and _OWN_DEFINE.search(text) is None


def imports_kit(text: str) -> bool:
    """Whether the text imports or requires `@johnlindquist/kit` (or a module of it)."""
    after = 0  # where the words before the next module name can start
    for module in _KIT_MODULE.finditer(text):
        start = max(after, *(text.rfind(mark, after, module.start()) + 1 for mark in "'\";"))
        if _introduces_module(text[start : module.start()]):
            return True
        after = module.end() - 1
    return False


def _introduces_module(words: str) -> bool:
    """`import`, `import x from`, `require(` right before a module name."""
    words = words.rstrip()
    if words.endswith("("):
        return _ends_with_word(words[:-1].rstrip(), "require")
    if _ends_with_word(words, "import"):
        return True
    return _ends_with_word(words, "from") and _IMPORT_WORD.search(words, 0, len(words) - 4) is not None


def _ends_with_word(text: str, word: str) -> bool:
    before = text[-len(word) - 1 : -len(word)]
    return text.endswith(word) and not (before.isalnum() or before == "_")


def mcp_name(text: str) -> str | None:
    """The tool name its `// mcp:` metadata gives ("" for `mcp: true`), None when none."""
    match = _MCP.search(text)
    if match is None:
        return None
    value = match.group("value").strip().strip("'\"")
    if value.lower() in ("true", ""):
        return ""
    return value if TOOL_NAME_PATTERN.match(value) else slug_name(value)


def tool_name(candidate: Candidate) -> str | None:
    """The `mcp:` name, else the slug of its Name, else None (the name from its path)."""
    name = mcp_name(candidate.head)
    if name:
        return name
    metadata = all_metadata(candidate.head, None).get("name")
    return (metadata and slug_name(metadata.value)) or None


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    path = candidate.relative_path
    text = candidate.text()
    name = mcp_name(text)
    if name is None:
        raise NotATool(
            "a Script Kit script without `// mcp:` metadata: Script Kit offers only scripts "
            "marked `// mcp: tool-name` to MCP clients (add that line to make it a tool)",
            kind="scriptkit-no-mcp",
        )
    if name.lower() == "false":
        raise NotATool("its `// mcp: false` keeps it from MCP clients", kind="scriptkit-no-mcp")
    call = params_call(text)
    parameters = params_parameters(text, call, path) if call else arg_parameters(text, path)
    check_runnable(candidate)
    metadata = all_metadata(text, None)
    title = metadata["name"].value if "name" in metadata else None
    described = metadata.get("description")
    description = (described and described.value) or title or f"Run the Script Kit script {path}"
    return [
        Declaration(
            dialect="scriptkit",
            description=description,
            parameters=parameters,
            title=title,
        )
    ]


def check_runnable(candidate: Candidate) -> None:
    """The runtime needs `node` 20.6 or later, and 22.6 or later for TypeScript."""
    typescript = candidate.path.suffix.lower() in TYPESCRIPT_SUFFIXES
    if node_command(typescript=typescript) is not None:
        return
    wanted = "22.6 or later (which runs TypeScript itself)" if typescript else "20.6 or later"
    raise DiscoveryError(
        f"cannot be run: it is a Script Kit script, which toolkiln runs with node (Node.js) "
        f"{wanted}, and no such node is installed on the PATH; install it",
        path=candidate.relative_path,
    )
