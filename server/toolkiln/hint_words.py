"""toolkiln's hints in the words of a folder of scripts served as DIR.

The library writes its hints for a project (`toolkiln discover`, `config/server.json`,
`` `discovery.fallback` in config/server.json ``): that is what a project has. A folder
of scripts served as `toolkiln serve DIR` has no `config/` of its own (its configs are
in a private folder toolkiln keeps for it), and every command reaches it only through
DIR. `for_folder` rewrites a hint so that it works as printed: the command line uses it
for what it prints (cli/hints.py), the runner for the errors a served tool's call
returns to the client (runner/call.py).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolkiln.served_folder import ServedFolder

# The commands that take DIR as their last positional word (after NAME where they take one).
_DIR_COMMANDS = "discover|build|list|doctor|audit|serve|where|fallback on|fallback off"
_GIVEN = r"(?!\s+(?:DIR\b|[/~.'\"]))"  # not when a folder is named already
_COMMAND = re.compile(rf"\btoolkiln ({_DIR_COMMANDS})\b{_GIVEN}")
_NAMED = re.compile(rf"\btoolkiln (new|enable|disable) (NAME|[A-Za-z0-9_-]+)\b{_GIVEN}")
_CALL = re.compile(rf"\btoolkiln call (NAME|[A-Za-z0-9_-]+)\b{_GIVEN}")
_FALLBACK = re.compile(r"`?discovery\.fallback`? in config/server\.json")
_CONFIG_FILE = re.compile(r"(?<![\w./~-])config/(server\.json|tools\.json|tools/|prompts/|resources/|logs/)")


def for_folder(text: str, served: ServedFolder, *, here: Path | None) -> str:
    """`text`, with its hints in the words of `served`.

    For a plain folder of scripts (configs kept by toolkiln): each `toolkiln COMMAND`
    that takes DIR gets it, each `config/...` path becomes the private folder's, and the
    fallback's setting becomes the command that sets it. For a project, only the
    commands get DIR, so that they work from any folder; from inside the project
    (`here` is its root) they work as they are. `here=None`: no working folder is known
    (a hint sent to an MCP client), so DIR is always named.
    """
    folder = shlex.quote(str(served.root))
    if served.owned or served.config != (served.root if here is None else here) / "config":
        text = _FALLBACK.sub(f"`toolkiln fallback on {folder}`", text)
        text = _CONFIG_FILE.sub(lambda match: f"{served.config}/{match.group(1)}", text)
    if served.root == here and not served.owned:
        return text
    text = _COMMAND.sub(lambda match: f"toolkiln {match.group(1)} {folder}", text)
    text = _NAMED.sub(lambda match: f"toolkiln {match.group(1)} {match.group(2)} {folder}", text)
    return _CALL.sub(lambda match: f"toolkiln call {match.group(1)} {folder}", text)
