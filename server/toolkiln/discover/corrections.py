"""A user's corrections survive rediscovery.

Discovery owns a tool's description and parameters, and rewrites them whenever it reads
the script again (the script changed, `discover --force`, a new toolkiln). A user who
corrected one of them (a description in their own words, a parameter named from prose
renamed, a guessed type fixed) must not lose it. So each config keeps, in `discovered`,
what discovery last wrote of those keys; on the next reading, a key whose value differs
from it was edited by the user, and the user's value is kept over discovery's new one:

- the description;
- a parameter's `name`, `type` and `description`, the parameter found by the name
  discovery gave it (in the user's config, by its place among those discovery wrote).

Everything else a reading says (options, required, defaults, new or removed parameters)
is discovery's, as before; a corrected key is no longer listed in `guessed`.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkiln.model import Parameter, ScriptConfig
    from toolkiln.model.tools import Discovered

FIELDS = ("name", "type", "description")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:12]


def snapshot(description: str, parameters: list[Parameter]) -> Discovered:
    """What discovery writes now, to tell later edits from it."""
    from toolkiln.model.tools import Discovered, DiscoveredParameter

    return Discovered(
        description=digest(description),
        parameters=[
            DiscoveredParameter(name=param.name, type=param.type, description=digest(param.description))
            for param in parameters
        ],
    )


def keep_corrections(fresh: ScriptConfig, existing: ScriptConfig) -> ScriptConfig:
    """`fresh` (discovery's new reading, with its `discovered`) with the corrections the
    user made to `existing` since discovery last wrote it."""
    before = existing.discovered
    if before is None:  # written before toolkiln kept track: nothing can be told apart
        return fresh
    update: dict[str, Any] = {}
    corrected: set[str] = set()
    if digest(existing.description) != before.description:
        update["description"] = existing.description
        corrected.add("description")
    edits: dict[str, dict[str, Any]] = {}  # by the name discovery gave the parameter
    for written, mine in zip(before.parameters, existing.parameters, strict=False):
        changed = {
            key: getattr(mine, key)
            for key in FIELDS
            if (digest(getattr(mine, key)) if key == "description" else getattr(mine, key))
            != getattr(written, key)
        }
        if changed:
            edits[written.name] = changed
    if edits:
        parameters = []
        for param in fresh.parameters:
            changed = edits.get(param.name, {})
            if changed:
                corrected.update(f"parameters.{param.name}.{key}" for key in changed)
                param = param.model_copy(update=changed)
            parameters.append(param)
        update["parameters"] = parameters
    if corrected:
        update["guessed"] = [path for path in fresh.guessed if path not in corrected]
    return fresh.model_copy(update=update) if update else fresh
