"""Prompts from `prompts/` and resources from `resources/`, discovered, built and served,
driven by the SDK client in both eras."""

from __future__ import annotations

import base64
import json
import textwrap
from pathlib import Path

import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("mode", ["legacy", "auto"])]

REVIEW = """\
---
title: Code review
description: Review code
@param code: The code (required: true)
@param language: Its language (enum: python|go, default: python)
@param focus: What matters most (max: 20)
---
Review this {{ language }} code{% if focus %}, mostly {{ focus }}{% endif %}:
{{ code }}
"""

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path) -> Path:
    make_tool(
        "hello.sh", '#!/bin/sh\n[ "$1" = --help ] && { echo \'{"description": "hi"}\'; exit 0; }\necho hi\n'
    )
    prompts, resources = tmp_path / "prompts", tmp_path / "resources"
    (prompts / "code").mkdir(parents=True)
    (prompts / "code" / "review.md").write_text(REVIEW)
    (prompts / "plain.txt").write_text("Say hello.\n")
    (resources / "users").mkdir(parents=True)
    (resources / "notes.md").write_text("# Notes\n")
    (resources / "pixel.png").write_bytes(PNG)
    (resources / "users" / "{id}.json").write_text('{"id": "{{ id }}"}\n')
    report = discover_tools(tools_dir, config_dir, prompts_dir=prompts, resources_dir=resources)
    assert not report.errors
    assert [(s.name, s.change) for s in report.prompts] == [("code__review", "created"), ("plain", "created")]
    build_catalog(config_dir, tools_dir, prompts, resources)
    return config_dir


async def test_prompts_are_listed_with_their_arguments(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        prompts = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
    assert sorted(prompts) == ["code__review", "plain"]
    review = prompts["code__review"]
    assert (review.title, review.description) == ("Code review", "Review code")
    assert [(a.name, a.required) for a in review.arguments or []] == [
        ("code", True),
        ("language", False),
        ("focus", False),
    ]


async def test_a_prompt_is_rendered_with_its_arguments_and_defaults(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        first = await client.get_prompt("code__review", {"code": "print(1)"})
        second = await client.get_prompt(
            "code__review", {"code": "x := 1", "language": "go", "focus": "naming"}
        )
        plain = await client.get_prompt("plain")
    [message] = first.messages
    assert message.role == "user"
    assert isinstance(message.content, types.TextContent)
    assert message.content.text == "Review this python code:\nprint(1)\n"
    assert second.messages[0].content.text == "Review this go code, mostly naming:\nx := 1\n"  # type: ignore[union-attr]
    assert plain.messages[0].content.text == "Say hello.\n"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "'code' is required"),
        ({"code": "x", "language": "cobol"}, 'language: "cobol" must be one of ["python", "go"]'),
        ({"code": "x", "focus": "a" * 30}, "must be at most 20 characters long"),
        ({"code": "x", "colour": "red"}, "unknown argument 'colour'"),
    ],
)
async def test_bad_prompt_arguments_are_refused(
    served: Path, mode: str, arguments: dict[str, str], message: str
) -> None:
    async with connect(served, mode) as client:
        with pytest.raises(MCPError, match="Invalid arguments for prompt 'code__review'") as raised:
            await client.get_prompt("code__review", arguments)
        with pytest.raises(MCPError, match="Unknown prompt"):
            await client.get_prompt("nope")
    assert raised.value.code == -32602
    assert message in raised.value.message


async def test_a_prompt_edit_shows_without_a_rebuild(served: Path, mode: str, tmp_path: Path) -> None:
    async with connect(served, mode) as client:
        (tmp_path / "prompts" / "plain.txt").write_text("Say goodbye.\n")
        result = await client.get_prompt("plain")
    assert result.messages[0].content.text == "Say goodbye.\n"  # type: ignore[union-attr]


async def test_files_are_resources_and_templates(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        listed = {str(r.uri): r for r in (await client.list_resources()).resources}
        templates = (await client.list_resource_templates()).resource_templates
        notes = (await client.read_resource("toolkiln://resources/notes.md")).contents
        pixel = (await client.read_resource("toolkiln://resources/pixel.png")).contents
        user = (await client.read_resource("toolkiln://resources/users/42.json")).contents
        with pytest.raises(MCPError, match="Resource not found"):
            await client.read_resource("toolkiln://resources/missing.md")
    assert listed["toolkiln://resources/notes.md"].mime_type == "text/markdown"
    assert listed["toolkiln://resources/pixel.png"].mime_type == "image/png"
    assert [t.uri_template for t in templates] == ["toolkiln://resources/users/{id}.json"]
    assert isinstance(notes[0], types.TextResourceContents) and notes[0].text == "# Notes\n"
    assert isinstance(pixel[0], types.BlobResourceContents)
    assert base64.b64decode(pixel[0].blob) == PNG
    assert isinstance(user[0], types.TextResourceContents)
    assert json.loads(user[0].text) == {"id": "42"}


async def test_a_resource_uri_set_in_its_config_is_kept_and_served(
    served: Path, mode: str, tools_dir: Path, tmp_path: Path
) -> None:
    config = served / "resources" / "notes_md.json"
    data = json.loads(config.read_text())
    data["resource_config"]["uri"] = "docs://notes"
    config.write_text(json.dumps(data))
    (tmp_path / "resources" / "notes.md").write_text("# Notes, edited\n")
    prompts, resources = tmp_path / "prompts", tmp_path / "resources"
    discover_tools(tools_dir, served, prompts_dir=prompts, resources_dir=resources)
    build_catalog(served, tools_dir, prompts, resources)
    assert json.loads(config.read_text())["resource_config"]["uri"] == "docs://notes"
    async with connect(served, mode) as client:
        contents = (await client.read_resource("docs://notes")).contents
    assert contents[0].text == textwrap.dedent("# Notes, edited\n")  # type: ignore[union-attr]
