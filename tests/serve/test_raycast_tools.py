"""Raycast script commands through `toolkiln serve` and the SDK's real client: arguments
reach the script as Raycast gives them, positional `$1 $2 $3`."""

# ruff: noqa: E501 (a Raycast argument is one line of JSON in the script, however long)

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

SEARCH = """\
    #!/bin/bash

    # Required parameters:
    # @raycast.schemaVersion 1
    # @raycast.title Search Flights
    # @raycast.mode silent

    # Optional parameters:
    # @raycast.argument1 { "type": "text", "placeholder": "from city", "percentEncoded": true }
    # @raycast.argument2 { "type": "text", "placeholder": "to city", "optional": true, "percentEncoded": true }

    # Documentation:
    # @raycast.description Prints the flight search URL

    echo "https://www.google.com/search?q=flights%20from%20$1%20to%20$2 ($#)"
"""
ECHO = """\
    #!/usr/bin/env python3

    # @raycast.schemaVersion 1
    # @raycast.title Echo
    # @raycast.mode fullOutput
    # @raycast.argument1 { "type": "text", "placeholder": "Text" }
    # @raycast.argument2 { "type": "dropdown", "placeholder": "Mode", "data": [{"title": "Loud", "value": "--loud"}, {"title": "Quiet", "value": "quiet"}] }
    # @raycast.argument3 { "type": "password", "placeholder": "Token", "optional": true }

    import json, sys
    stdin = sys.stdin.read() if not sys.stdin.isatty() else ""
    print(json.dumps({"argv": sys.argv[1:], "stdin": stdin}))
"""
HOSTILE = ["a b  c", 'it\'s "quoted"', "$(id)", "`id`", "; rm -rf / #", "*", "ünï ✓", "line\nbreak", "-5"]


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("search-flights.sh", SEARCH)
    make_tool("echo.py", ECHO)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_positional_arguments_percent_encoded_and_empty_when_left_out(served: Path) -> None:
    async with connect(served, "auto") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        both = await client.call_tool("search-flights", {"from_city": "New York & co/é", "to_city": "a+b=c?"})
        one = await client.call_tool("search-flights", {"from_city": "Paris"})
        empty = await client.call_tool("search-flights", {"from_city": ""})
    assert sorted(tools) == ["echo", "search-flights"]
    assert tools["search-flights"].input_schema["required"] == ["from_city"]
    assert text_of(both) == (
        "https://www.google.com/search?q=flights%20from%20New%20York%20%26%20co%2F%C3%A9%20to%20a%2Bb%3Dc%3F (2)"
    )
    assert text_of(one) == "https://www.google.com/search?q=flights%20from%20Paris%20to%20 (2)"
    assert empty.is_error  # Raycast runs no command with a required argument left empty


async def test_values_arrive_verbatim_and_cannot_become_options(served: Path) -> None:
    async with connect(served, "auto") as client:
        results = [
            await client.call_tool("echo", {"text": value, "mode": "quiet", "token": "s3cret"})
            for value in HOSTILE
        ]
        dropdown = await client.call_tool("echo", {"text": "x", "mode": "--loud"})
        option = await client.call_tool("echo", {"text": "--help", "mode": "quiet"})
        not_listed = await client.call_tool("echo", {"text": "x", "mode": "loud"})
    assert [json.loads(text_of(result)) for result in results] == [
        {"argv": [value, "quiet", "s3cret"], "stdin": ""} for value in HOSTILE
    ]
    assert json.loads(text_of(dropdown)) == {
        "argv": ["x", "--loud", ""],
        "stdin": "",
    }  # the author's own value
    assert option.is_error and "starts with '-'" in text_of(option)
    assert not_listed.is_error
