"""Raycast script commands: `# @raycast.*` metadata comments, read as text."""

# ruff: noqa: E501 (a Raycast argument is one line of JSON in the script, however long)

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from tests.conftest import MakeTool
from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe
from toolkiln.conventions.raycast import read as raycast
from toolkiln.discover import discover_tools
from toolkiln.errors import DiscoveryError
from toolkiln.files import load_tool_config, tool_config_path
from toolkiln.model import Parameter

# The shapes of raycast/script-commands: a "Required parameters" block, an "Optional
# parameters" block, a "Documentation" block, then the code.
SEARCH = """\
    #!/bin/bash

    # Required parameters:
    # @raycast.schemaVersion 1
    # @raycast.title Search Flights
    # @raycast.mode silent

    # Optional parameters:
    # @raycast.icon 🛩
    # @raycast.packageName Web Searches
    # @raycast.argument1 { "type": "text", "placeholder": "from city", "percentEncoded": true }
    # @raycast.argument2 { "type": "text", "placeholder": "to city", "optional": true, "percentEncoded": true }

    # Documentation:
    # @raycast.description Search flights between two cities
    # @raycast.author Someone
    # @raycast.authorURL https://example.com

    echo "https://www.google.com/search?q=flights%20from%20$1%20to%20$2"
"""
NO_ARGUMENTS_PY = """\
    #!/usr/bin/env python3

    # Required parameters:
    # @raycast.schemaVersion 1
    # @raycast.title Generate Password
    # @raycast.mode silent
    # @raycast.packageName Security

    import secrets
    print(secrets.token_urlsafe(12))
"""
NODE = """\
    #!/usr/bin/env node

    // Required parameters:
    // @raycast.schemaVersion 1
    // @raycast.title Count Characters
    // @raycast.mode compact
    // @raycast.argument1 { "type": "text", "placeholder": "Text" }

    // Optional parameters:
    // @raycast.needsConfirmation false

    console.log(process.argv[2].length)
"""
KINDS = """\
    #!/bin/bash
    # @raycast.schemaVersion 1
    # @raycast.title Create Ticket
    # @raycast.mode fullOutput
    # @raycast.argument1 { "type": "password", "placeholder": "API Key" }
    # @raycast.argument2 { "type": "dropdown", "placeholder": "Priority", "data": [{"title": "High", "value": "p1"}, {"title": "Low", "value": "p3"}] }
    # @raycast.argument3 { "type": "text", "placeholder": "Summary", "secure": true, "optional": true }
    echo "$2 $3"
"""
APPLESCRIPT = """\
    #!/usr/bin/osascript

    # Required parameters:
    # @raycast.schemaVersion 1
    # @raycast.title Delete Current Line
    # @raycast.mode silent

    tell application "System Events"
        keystroke "k" using control down
    end tell
"""


def declare(path: Path, tools_dir: Path) -> Declaration:
    candidate = Candidate(path, path.relative_to(tools_dir).as_posix(), os.stat(path))
    assert raycast.claims(candidate)
    [declaration] = anyio.run(raycast.declare, candidate, Probe(1.0, "none"))
    return declaration


def test_a_search_command_with_two_percent_encoded_arguments(make_tool: MakeTool, tools_dir: Path) -> None:
    declaration = declare(make_tool("web/search-flights.sh", SEARCH), tools_dir)
    assert declaration == Declaration(
        dialect="raycast",
        description="Search flights between two cities",
        title="Search Flights",
        parameters=[
            Parameter(name="from_city", description="from city", required=True, min=1, encoding="percent"),
            Parameter(name="to_city", description="to city", encoding="percent"),
        ],
    )


def test_no_arguments_and_the_title_as_description(make_tool: MakeTool, tools_dir: Path) -> None:
    declaration = declare(make_tool("genpasswd.py", NO_ARGUMENTS_PY), tools_dir)
    assert (declaration.description, declaration.title, declaration.parameters) == (
        "Generate Password",
        "Generate Password",
        [],
    )


def test_double_slash_comments(make_tool: MakeTool, tools_dir: Path) -> None:
    declaration = declare(make_tool("count.js", NODE), tools_dir)
    assert declaration.parameters == [Parameter(name="text", description="Text", required=True, min=1)]


def test_password_dropdown_and_the_older_secure_flag(make_tool: MakeTool, tools_dir: Path) -> None:
    declaration = declare(make_tool("ticket.sh", KINDS), tools_dir)
    assert declaration.parameters == [
        Parameter(name="api_key", description="API Key", required=True, min=1, secret=True),
        Parameter(
            name="priority",
            description="Priority (one of: High = p1, Low = p3)",
            required=True,
            enum=["p1", "p3"],
        ),
        Parameter(name="summary", description="Summary", secret=True),
    ]


def test_field_names_in_any_case_lua_comments_crlf_and_the_first_one_wins(
    make_tool: MakeTool, tools_dir: Path
) -> None:
    body = (
        "#!/bin/sh\r\n-- @raycast.SchemaVersion 1\r\n--@raycast.TITLE  First  \r\n"
        "# @raycast.title Second\r\n# @raycast.mode inline\r\n"
    )
    path = make_tool("clock.sh", "")
    path.write_bytes(body.encode())
    assert declare(path, tools_dir).title == "First"


def test_placeholders_become_unique_names_else_argument_n(make_tool: MakeTool, tools_dir: Path) -> None:
    body = """\
        #!/bin/sh
        # @raycast.schemaVersion 1
        # @raycast.title Names
        # @raycast.mode silent
        # @raycast.argument1 { "type": "text", "placeholder": "Query" }
        # @raycast.argument2 { "type": "text", "placeholder": "query", "optional": true }
        # @raycast.argument3 { "type": "text", "placeholder": "PATH", "optional": true }
    """
    declaration = declare(make_tool("names.sh", body), tools_dir)
    assert [p.name for p in declaration.parameters] == ["query", "argument2", "path"]
    body = body.replace('"placeholder": "Query" ', '"placeholder": "Größe (cm)" ').replace(
        '"placeholder": "query", ', ""
    )
    declaration = declare(make_tool("names.sh", body), tools_dir)
    assert [p.name for p in declaration.parameters] == ["grosse", "argument2", "path"]


def test_a_name_leaves_out_the_example_or_format_that_follows_the_words(
    make_tool: MakeTool, tools_dir: Path
) -> None:
    body = """\
        #!/bin/sh
        # @raycast.schemaVersion 1
        # @raycast.title Shapes of placeholders
        # @raycast.mode silent
        # @raycast.argument1 { "type": "text", "placeholder": "Hex colour (e.g. #00FF7F)" }
        # @raycast.argument2 { "type": "text", "placeholder": "Blur=3", "optional": true }
        # @raycast.argument3 { "type": "text", "placeholder": "Hex colour [fallback]", "optional": true }
    """
    declaration = declare(make_tool("tint.sh", body), tools_dir)
    assert [(p.name, p.description) for p in declaration.parameters] == [
        ("hex_colour", "Hex colour (e.g. #00FF7F)"),
        ("blur", "Blur=3"),
        ("hex_colour_fallback", "Hex colour [fallback]"),  # the short name is taken
    ]
    body = body.replace('"Blur=3"', '"(optional) blur radius"')
    assert declare(make_tool("tint.sh", body), tools_dir).parameters[1].name == "optional_blur_radius"


def test_an_argument_numbered_twice_or_after_a_gap_is_an_error_not_a_tool_missing_one(
    make_tool: MakeTool, tools_dir: Path
) -> None:
    # Copied and edited by hand: the second `argument2` should have been `argument3`; the
    # script reads `$3`, which Raycast never gives, and its required value would be lost.
    twice = """\
        #!/bin/bash
        # @raycast.schemaVersion 1
        # @raycast.title Store Secret
        # @raycast.mode fullOutput
        # @raycast.argument1 { "type": "text", "placeholder": "Service" }
        # @raycast.argument2 { "type": "text", "placeholder": "Login", "optional": true }
        # @raycast.argument2 { "type": "password", "placeholder": "Secret" }
        echo "$1 $2 ${#3}"
    """
    with pytest.raises(DiscoveryError, match=r"argument2` is declared twice.*first on line 6") as caught:
        declare(make_tool("store-secret.sh", twice), tools_dir)
    assert caught.value.line == 7
    gap = twice.replace('argument2 { "type": "text"', 'argument3 { "type": "text"').replace(
        'argument2 { "type": "password"', 'argument4 { "type": "password"'
    )
    with pytest.raises(
        DiscoveryError, match=r"argument3` without `@raycast\.argument2`.*arrive as \$2"
    ) as caught:
        declare(make_tool("store-secret.sh", gap), tools_dir)
    assert caught.value.line == 6
    # The same line twice (a copy) changes nothing.
    same = twice.replace(
        '"type": "password", "placeholder": "Secret"',
        '"type": "text", "placeholder": "Login", "optional": true',
    )
    assert [p.name for p in declare(make_tool("store-secret.sh", same), tools_dir).parameters] == [
        "service",
        "login",
    ]


def test_a_template_is_not_a_tool_and_says_why(make_tool: MakeTool, tools_dir: Path) -> None:
    with pytest.raises(NotATool, match="template") as caught:
        declare(make_tool("create-gist.template.sh", SEARCH), tools_dir)
    assert caught.value.kind == "raycast-template"


def test_a_macos_only_script_is_read_and_said_not_to_run_here(make_tool: MakeTool, tools_dir: Path) -> None:
    with pytest.raises(NotATool, match=r"osascript \(a macOS program\)") as caught:
        declare(make_tool("delete-line.applescript", APPLESCRIPT), tools_dir)
    assert caught.value.kind == "runtime-missing"
    swift = "// @raycast.schemaVersion 1\n// @raycast.title Swift one\n// @raycast.mode silent\n"
    if not os.access("/usr/bin/swift", os.X_OK):
        with pytest.raises(NotATool, match="swift"):
            declare(make_tool("one.swift", "#!/usr/bin/swift\n" + swift), tools_dir)


@pytest.mark.parametrize(
    ("argument", "message", "line"),
    [
        ('{ "type": "text", "placeholder": "x", }', "argument1` is not valid JSON", 5),
        ('{ "type": "number", "placeholder": "x" }', "unknown type 'number'", 5),
        ('{ "type": "dropdown", "placeholder": "x" }', "a dropdown needs", 5),
        ('{ "type": "text", "optional": "yes" }', "'optional' must be true or false", 5),
    ],
)
def test_a_broken_argument_is_an_error_with_its_line(
    make_tool: MakeTool, tools_dir: Path, argument: str, message: str, line: int
) -> None:
    body = (
        "#!/bin/sh\n# @raycast.schemaVersion 1\n# @raycast.title Broken\n# @raycast.mode silent\n"
        f"# @raycast.argument1 {argument}\n"
    )
    with pytest.raises(DiscoveryError, match=message) as caught:
        declare(make_tool("broken.sh", body), tools_dir)
    assert caught.value.line == line


def test_no_title_is_an_error_and_an_unknown_schema_version_is_not_a_tool(
    make_tool: MakeTool, tools_dir: Path
) -> None:
    with pytest.raises(DiscoveryError, match=r"needs `@raycast\.title`"):
        declare(
            make_tool("a.sh", "#!/bin/sh\n# @raycast.schemaVersion 1\n# @raycast.mode silent\n"), tools_dir
        )
    with pytest.raises(NotATool, match="schemaVersion '2'"):
        declare(make_tool("b.sh", "#!/bin/sh\n# @raycast.schemaVersion 2\n# @raycast.title B\n"), tools_dir)


def test_without_a_mode_it_is_served_with_a_warning(make_tool: MakeTool, tools_dir: Path) -> None:
    declaration = declare(
        make_tool("a.sh", "#!/bin/sh\n# @raycast.schemaVersion 1\n# @raycast.title A\n"), tools_dir
    )
    assert [warning.reason for warning in declaration.warnings] == [
        "has no `@raycast.mode` (Raycast needs one); served all the same"
    ]


def test_other_files_are_not_claimed(make_tool: MakeTool, tools_dir: Path) -> None:
    for name, body in [
        ("plain.sh", "#!/bin/sh\necho hi\n"),
        ("mentions.sh", "#!/bin/sh\necho '@raycast.title is how Raycast names a command'\n"),
    ]:
        path = make_tool(name, body)
        assert not raycast.claims(Candidate(path, name, os.stat(path)))


def test_a_folder_of_script_commands_is_discovered_without_running_any(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("web/search-flights.sh", SEARCH)
    make_tool("security/genpasswd.py", NO_ARGUMENTS_PY)
    make_tool("text/count.js", NODE, executable=False)
    make_tool("apps/delete-line.applescript", APPLESCRIPT)
    make_tool("web/create-gist.template.sh", SEARCH)
    report = discover_tools(tools_dir, config_dir, probes="none")  # nothing may run, nothing has to
    assert not report.errors
    assert {(not_tool.path, not_tool.kind) for not_tool in report.not_tools} == {
        ("apps/delete-line.applescript", "runtime-missing"),
        ("web/create-gist.template.sh", "raycast-template"),
    }
    assert [tool.name for tool in report.tools] == [
        "security__genpasswd",
        "text__count",
        "web__search-flights",
    ]
    script = load_tool_config(tool_config_path(config_dir, "web__search-flights")).script_config
    assert (script.dialect, script.declared_title) == ("raycast", "Search Flights")


def test_needs_confirmation_starts_the_config_asking_first(make_tool: MakeTool, tools_dir: Path) -> None:
    script = NO_ARGUMENTS_PY.replace(
        "# @raycast.title", "# @raycast.needsConfirmation true\n# @raycast.title"
    )
    assert "needsConfirmation true" in script
    assert declare(make_tool("wipe.py", script), tools_dir).settings == {"requires_confirmation": True}
    assert declare(make_tool("genpasswd.py", NO_ARGUMENTS_PY), tools_dir).settings == {}
