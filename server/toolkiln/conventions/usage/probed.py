"""Scripts in languages toolkiln has no reader for (Ruby, Perl, PHP, Lua, ...) that
print their own usage: read from what a confined `--help` probe prints, with the usage
grammar, when that text is recognisably the script's own help (from_help.py).

    #!/usr/bin/env ruby
    # usage: shrink.rb [-q] [-o FILE] <image>

is probed once (`shrink.rb --help`, confined, with a timeout and an output cap, as
help-json's probe); its usage becomes the tool's parameters (help_tool.py) and its first
paragraph the description. Help that is not help (an error, data, another program's),
help-json's JSON, or help naming what toolkiln cannot pass is left as help-json leaves
it: not a tool, with the reason. The claim is the file's own text: an executable with a
`#!` line for such a language whose text says `usage` and not help-json's keys.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from toolkiln.conventions.base import Candidate, Declaration, NotATool
from toolkiln.conventions.fallback import read as fallback
from toolkiln.conventions.help_json import read as help_json
from toolkiln.conventions.start_failure import start_failure
from toolkiln.conventions.usage.from_help import OUTPUT_LIMIT, declare_from_help
from toolkiln.discover.probe import run_probe
from toolkiln.errors import ProcessStartError

if TYPE_CHECKING:
    from toolkiln.conventions.base import Probe

CLAIM_IS_CERTAIN = False  # only the probe can tell
# The languages read statically elsewhere (shell, Python, Node, TypeScript) are not probed here.
_READ_ELSEWHERE = frozenset({"shell", "python", "node", "typescript"})
_USAGE = re.compile(r"usage", re.IGNORECASE)
_HELP_JSON = re.compile(r"[\"'](?:description|value_type|input_schema)[\"']")


def claims(candidate: Candidate) -> bool:
    if not candidate.executable or fallback.opted_in(candidate):
        return False
    head = candidate.head
    if not head.startswith("#!") or candidate.script_type in _READ_ELSEWHERE:
        return False
    return _USAGE.search(head) is not None and _HELP_JSON.search(head) is None


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    try:
        result = await run_probe(candidate, ["--help"], probe, OUTPUT_LIMIT)
    except ProcessStartError as error:
        raise start_failure(candidate, error) from None
    if result.stdout.lstrip().startswith(b"{"):
        return await help_json.declare(candidate, probe)  # it speaks help-json after all
    if result.timed_out:
        raise NotATool(f"`--help` did not finish within {probe.timeout:g} s", kind="help-timeout")
    if result.stdout_truncated:
        raise NotATool("`--help` printed a flood of text, not help", kind="plain-help")
    return [declare_from_help(candidate, result)]
