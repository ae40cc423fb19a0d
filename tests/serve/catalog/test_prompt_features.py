"""Prompts beyond one text message: several messages with any content, values asked
of the user (`@ask`), completions, and the not-found error of each era."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
CHART = """\
---
description: Discuss a chart
@param topic: What the chart shows (required: true, examples: sales|salaries|sauces)
---
{"messages": [
  {"role": "user", "content": {"type": "image", "path": "chart.png"}},
  {"role": "assistant", "content": {"type": "text", "text": "I see the chart."}},
  {"role": "user", "content": {"type": "text",
                               "text": {{ ("What does it say about " ~ topic ~ "?") | tojson }}}}
]}
"""
BRIEF = """\
---
description: Write a brief
@param kind: What kind (enum: memo|email|letter, default: memo)
@ask audience: Who will read it? (required: true)
---
Write a {{ kind }} for {{ audience or "anyone" }}.
"""
BROKEN = """\
---
description: Renders messages that are not MCP
---
{"messages": [{"role": "robot", "content": {"type": "text", "text": "x"}}]}
"""


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path) -> Path:
    make_tool("hello.sh", "#!/bin/sh\n# Tool: hello\n# Description: hi\necho hi\n")
    prompts, resources = tmp_path / "prompts", tmp_path / "resources"
    prompts.mkdir()
    resources.mkdir()
    (prompts / "chart.md").write_text(CHART)
    (prompts / "chart.png").write_bytes(PNG)
    (prompts / "brief.md").write_text(BRIEF)
    (prompts / "broken.md").write_text(BROKEN)
    (resources / "{city}.json").write_text('{"city": "{{ city }}"}')
    assert not discover_tools(tools_dir, config_dir, prompts_dir=prompts, resources_dir=resources).errors
    config = config_dir / "resources" / "city_json.json"
    config.write_text(
        config.read_text().replace('"completions": {}', '"completions": {"city": ["Paris", "Perth", "Oslo"]}')
    )
    build_catalog(config_dir, tools_dir, prompts, resources)
    return config_dir


class User:
    def __init__(self, action: str = "accept") -> None:
        self.action = action
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append((params.message, params.requested_schema))  # type: ignore[union-attr]
        content = {"audience": "the board"} if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_body_that_renders_messages_gives_several_messages_with_any_content(
    served: Path, mode: str
) -> None:
    async with connect(served, mode) as client:
        result = await client.get_prompt("chart", {"topic": 'sales "2026"'})
        with pytest.raises(MCPError) as broken:
            await client.get_prompt("broken")
    image, reply, question = result.messages
    assert image.role == "user" and image.content.type == "image"
    assert base64.b64decode(image.content.data) == PNG and image.content.mime_type == "image/png"
    assert reply.role == "assistant"
    assert question.content.text == 'What does it say about sales "2026"?'  # type: ignore[union-attr]
    assert "rendered messages that are not valid MCP" in broken.value.error.message


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_ask_values_come_from_the_user_in_both_eras(served: Path, mode: str) -> None:
    user = User()
    async with connect(served, mode, client={"elicitation_callback": user}) as client:
        result = await client.get_prompt("brief", {"kind": "email"})
    assert result.messages[0].content.text == "Write a email for the board.\n"  # type: ignore[union-attr]
    ((message, schema),) = user.asked
    assert message == "Who will read it?"
    assert schema["properties"]["audience"]["type"] == "string" and schema["required"] == ["audience"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_ask_values_are_left_empty_for_a_client_that_cannot_ask(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        plain = await client.get_prompt("brief")
    async with connect(served, mode, client={"elicitation_callback": User("decline")}) as client:
        declined = await client.get_prompt("brief")
    assert plain.messages[0].content.text == "Write a memo for anyone.\n"  # type: ignore[union-attr]
    assert declined.messages[0].content.text == "Write a memo for anyone.\n"  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_completions_offer_enum_examples_and_resource_template_values(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        kinds = await client.complete(types.PromptReference(name="brief"), {"name": "kind", "value": "e"})
        topics = await client.complete(types.PromptReference(name="chart"), {"name": "topic", "value": "SA"})
        cities = await client.complete(
            types.ResourceTemplateReference(uri="toolkiln://resources/{city}.json"),
            {"name": "city", "value": "p"},
        )
        nothing = await client.complete(types.PromptReference(name="brief"), {"name": "nope", "value": ""})
    assert kinds.completion.values == ["email"]
    assert topics.completion.values == ["sales", "salaries", "sauces"]
    assert cities.completion.values == ["Paris", "Perth"]
    assert nothing.completion.values == []


@pytest.mark.parametrize(("mode", "code"), [("legacy", -32002), ("auto", -32602)])
async def test_an_unknown_resource_is_the_error_of_the_era_naming_its_uri(
    served: Path, mode: str, code: int
) -> None:
    async with connect(served, mode) as client:
        with pytest.raises(MCPError) as missing:
            await client.read_resource("toolkiln://resources/nope")
    assert missing.value.error.code == code
    assert missing.value.error.data == {"uri": "toolkiln://resources/nope"}
