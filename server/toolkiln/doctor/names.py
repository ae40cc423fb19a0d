"""Checks of the names and number of the enabled tools, as clients will see them.

Clients put the server's name before each tool's, and limit the result: Claude Code
calls a tool `mcp__<server>__<tool>`, at most 64 characters in all; Cursor filters out
a tool whose server and tool names together reach 60 characters. Cursor also reads
only 40 tools, and VS Code sends at most 128 to the model.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from toolkiln.doctor.findings import Finding, Project
from toolkiln.files import tool_configs_dir
from toolkiln.model import ToolConfig

CLAUDE_CODE_LIMIT = 64
CURSOR_LIMIT = 59  # server + tool: 60 characters is already too many
TOOL_COUNT_LIMITS = (("Cursor", 40), ("VS Code", 128))


def check_names(project: Project) -> list[Finding]:
    enabled = project.enabled
    findings = _collisions(enabled)
    for path, config in enabled:
        name = config.script_config.name
        findings += _length_findings(path, name, project.server_name)
        if name[0].isdigit():
            findings.append(
                Finding(
                    severity="warning",
                    check="name-start",
                    path=str(path),
                    message=f"the tool name {name!r} starts with a digit, which clients built on "
                    "Gemini reject (a function name must start with a letter or _)",
                    fix="set script_config.name to a name that starts with a letter",
                )
            )
    for client, limit in TOOL_COUNT_LIMITS:
        if len(enabled) > limit:
            findings.append(
                Finding(
                    severity="warning",
                    check="too-many-tools",
                    path=str(tool_configs_dir(project.config_dir)),
                    message=f"{len(enabled)} tools are enabled, and {client} takes only {limit}: "
                    "the others are left out, and a long list costs every request context",
                    fix='disable the tools you do not need ("enabled": false), or serve them from '
                    "several servers (--tools-dir, --name)",
                )
            )
    return findings


def _collisions(enabled: list[tuple[Path, ToolConfig]]) -> list[Finding]:
    by_name: dict[str, list[Path]] = defaultdict(list)
    by_folded: dict[str, set[str]] = defaultdict(set)
    for path, config in enabled:
        by_name[config.script_config.name].append(path)
        by_folded[config.script_config.name.casefold()].add(config.script_config.name)
    findings = []
    for name, paths in sorted(by_name.items()):
        if len(paths) > 1:
            findings.append(
                Finding(
                    severity="error",
                    check="name-collision",
                    path=str(paths[1]),
                    message=f"the tool name {name!r} is also the name in {paths[0]}: the build fails",
                    fix="set a different script_config.name in one of them",
                )
            )
    for names in by_folded.values():
        if len(names) > 1:
            listed = ", ".join(sorted(names))
            findings.append(
                Finding(
                    severity="warning",
                    check="name-collision",
                    path=str(by_name[sorted(names)[0]][0]),
                    message=f"the tool names {listed} differ only in case, which models and some "
                    "clients confuse",
                    fix="rename one of them (script_config.name)",
                )
            )
    return findings


def _length_findings(path: Path, name: str, server: str) -> list[Finding]:
    claude_code = f"mcp__{server}__{name}"
    too_long = []
    if len(claude_code) > CLAUDE_CODE_LIMIT:
        too_long.append(f"Claude Code calls it {claude_code} ({len(claude_code)} > {CLAUDE_CODE_LIMIT})")
    if len(server) + len(name) > CURSOR_LIMIT:
        combined = len(server) + len(name)
        too_long.append(f"Cursor counts {combined} characters of server and tool name (> {CURSOR_LIMIT})")
    if not too_long:
        return []
    budget = min(CLAUDE_CODE_LIMIT - len(f"mcp__{server}__"), CURSOR_LIMIT - len(server))
    return [
        Finding(
            severity="warning",
            check="name-too-long",
            path=str(path),
            message=f"the tool name {name!r} is too long once prefixed with the server's name "
            f"{server!r}: {'; '.join(too_long)}, and the client leaves it out",
            fix=f"set script_config.name to at most {max(budget, 1)} characters, or give the "
            "server a shorter name (config --name, doctor --server-name)",
        )
    ]
