"""An llm-functions agent's `tools.js`: each exported function with a JSDoc comment is a
tool of its own, named after the function, as the agent's model knows it.

    /**
     * Add a new todo item
     * @typedef {Object} Args
     * @property {string} desc - The task description
     * @param {Args} args
     */
    exports.add_todo = function addTodo(args) { ... }

    exports._instructions = ...      // starts with `_`: not a tool
    exports.helper = function () {}  // no JSDoc: not a tool (as llm-functions has it)

Also `export (async) function NAME(` and `export const NAME = (async) (...) =>`. Each is
read like a `run` (`conventions/javascript/function.py`) from its own JSDoc only; the runner
(`runtimes/run_function.cjs`) calls the function the tool's `command` names.
"""

from __future__ import annotations

import dataclasses
import re

from toolkiln.conventions.base import Declaration, NotATool
from toolkiln.conventions.javascript.declaration import block_above, function_declaration
from toolkiln.conventions.javascript.jsdoc import read_blocks

# llm-functions reads an agent's functions from `agents/<agent>/tools.js`.
AGENT_FILES = frozenset({"tools.js", "tools.mjs", "tools.cjs"})
_FUNCTION = r"(?:async[ \t]+)?(?:function\b|\([^)\n]*\)[ \t]*=>|[A-Za-z_$][\w$]*[ \t]*=>)"
_EXPORTED_FUNCTION = re.compile(
    rf"^[ \t]*(?:module\.)?exports\.(?P<assigned>[A-Za-z_$][\w$]*)[ \t]*=[ \t]*{_FUNCTION}"
    r"|^[ \t]*export[ \t]+(?:async[ \t]+)?function[ \t]*\*?[ \t]*(?P<declared>[A-Za-z_$][\w$]*)[ \t]*\("
    rf"|^[ \t]*export[ \t]+(?:const|let|var)[ \t]+(?P<bound>[A-Za-z_$][\w$]*)[ \t]*=[ \t]*{_FUNCTION}",
    re.MULTILINE,
)


def is_agent_tools(file_name: str, text: str) -> bool:
    """An agent's `tools.js` (`.mjs`, `.cjs`) that exports a function."""
    return file_name.lower() in AGENT_FILES and _EXPORTED_FUNCTION.search(text) is not None


def agent_declarations(text: str, path: str) -> list[Declaration]:
    """One tool per exported function that has a JSDoc comment right above it and does
    not start with `_`; `path` names the file in errors."""
    blocks = read_blocks(text)
    declarations: list[Declaration] = []
    for site in _EXPORTED_FUNCTION.finditer(text):
        name = site.group("assigned") or site.group("declared") or site.group("bound")
        own = block_above(blocks, text, site.start())
        if name.startswith("_") or own is None:
            continue
        declaration = function_declaration(text, blocks, own, [site], path, name=name, alone=True)
        declarations.append(dataclasses.replace(declaration, command=name, name=name))
    if not declarations:
        raise NotATool(
            "an agent's tools.js whose exported functions have no JSDoc comment: add a /** */ "
            "comment that says what each does above it to serve it",
            kind="no-declaration",
        )
    return declarations
