"""Function-style JavaScript tools (sigoden/llm-functions `tools/*.js`): a module that
exports `run`, described by the JSDoc comment above it.

    /**
     * Get the current weather in a location.
     * @typedef {Object} Args
     * @property {string} location - The city and optionally the state or country
     * @property {'celsius'|'fahrenheit'} [unit=celsius] - The unit
     * @param {Args} args
     */
    exports.run = async function ({ location, unit }) { ... }

Also `module.exports = { run }`, `module.exports.run = ...`, `export async function run`
and `export const run = ...`; the JSDoc may sit above `function run` instead, the
typedef may be a block of its own, and `@param {string} args.location` lines work as
`@property` ones do. The file is read as text, never run. The runner
(`runtimes/run_function.cjs`) imports it with Node and calls `run(arguments)`.
"""

from __future__ import annotations

import contextlib
import re
import shutil
from typing import TYPE_CHECKING

from toolkiln.conventions.base import HEAD_BYTES, Candidate, Declaration, NotATool, Probe
from toolkiln.conventions.javascript.agent import agent_declarations, is_agent_tools
from toolkiln.conventions.javascript.declaration import block_above, function_declaration
from toolkiln.conventions.javascript.jsdoc import read_blocks
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    pass

CLAIM_IS_CERTAIN = True
SUFFIXES = (".js", ".cjs", ".mjs")

_EXPORTED = re.compile(
    r"^[ \t]*(?:module\.)?exports\.run[ \t]*="
    r"|^[ \t]*module\.exports[ \t]*=[ \t]*\{[^{}]*?\brun\b"
    r"|^[ \t]*export[ \t]+(?:async[ \t]+)?function[ \t]*\*?[ \t]*run[ \t]*\("
    r"|^[ \t]*export[ \t]+(?:const|let|var)[ \t]+run\b"
    r"|^[ \t]*export[ \t]*\{[^{}]*\brun\b",
    re.MULTILINE,
)
# Where run is defined or assigned: the JSDoc right above one of these describes it.
_DEFINITION = re.compile(
    r"^[ \t]*(?:(?:module\.)?exports\.run[ \t]*="
    r"|(?:export[ \t]+(?:default[ \t]+)?)?(?:async[ \t]+)?function[ \t]*\*?[ \t]*run[ \t]*\("
    r"|(?:export[ \t]+)?(?:const|let|var)[ \t]+run[ \t]*(?::[^=\n]*)?="
    r"|(?:async[ \t]+)?run[ \t]*:"
    r"|(?:async[ \t]+)?run[ \t]*\([^)\n]*\)[ \t]*\{)",
    re.MULTILINE,
)


def claims(candidate: Candidate) -> bool:
    """A `.js`, `.cjs` or `.mjs` file that exports a `run`, or an llm-functions agent's
    `tools.js` that exports functions (`conventions/javascript/agent.py`)."""
    if candidate.path.suffix.lower() not in SUFFIXES:
        return False
    text = candidate.head
    if text and candidate.stat.st_size > HEAD_BYTES and not _EXPORTED.search(text):
        with contextlib.suppress(DiscoveryError):  # gone, unreadable or too large since its head was read
            text = candidate.text()
    if _EXPORTED.search(text) is not None:
        return True
    return is_agent_tools(candidate.path.name, text)


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    path = candidate.relative_path
    text = candidate.text()
    if shutil.which("node") is None:
        raise NotATool(
            "a JavaScript function tool: needs node (Node.js), which is not installed on the PATH",
            kind="runtime-missing",
        )
    if not _EXPORTED.search(text):
        return agent_declarations(text, path)
    blocks = read_blocks(text)
    sites = list(_DEFINITION.finditer(text))
    own = next((block for site in sites if (block := block_above(blocks, text, site.start()))), None)
    return [function_declaration(text, blocks, own, sites, path)]
