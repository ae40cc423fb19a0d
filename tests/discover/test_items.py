"""Discovery of prompts (front matter) and resources (files): parsing, names, incremental runs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from toolkiln.discover.items import PROMPTS, RESOURCES, discover_items
from toolkiln.discover.prompts import parse_prompt
from toolkiln.discover.resources import detect_content
from toolkiln.errors import ConfigError, DiscoveryError
from toolkiln.files import load_model
from toolkiln.model import ResourceConfig
from toolkiln.render import split_front_matter


def test_front_matter_gives_title_description_and_arguments() -> None:
    declaration = parse_prompt(
        "---\ntitle: T\ndescription: D\n# a comment\n@param a: First (required: true)\n"
        "@param b: Second (enum: x|y, default: x)\n---\nbody {{ a }}\n",
        "p.md",
    )
    assert (declaration.title, declaration.description) == ("T", "D")
    assert [(a.name, a.required, a.enum, a.default) for a in declaration.arguments] == [
        ("a", True, None, None),
        ("b", False, ["x", "y"], "x"),
    ]


def test_no_front_matter_is_a_prompt_without_arguments() -> None:
    assert parse_prompt("Just text {{ nothing }}\n", "p.md").arguments == []
    assert split_front_matter("Just text\n") == ([], "Just text\n", 1)
    assert split_front_matter("---\ntitle: x\n---\nbody\n") == (["title: x"], "body\n", 4)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("---\ntitle: x\nbody\n", 1, "never closed"),
        ("---\ntitle: x\nsomething else\n---\n", 3, "expected `title:`, `description:`, `@param"),
        ("---\n@param n: Number (type: integer)\n---\n", 2, "prompt arguments are strings"),
        ("---\n@param a: x\n@param a: y\n---\n", 3, "declared twice"),
        ("---\n\n@param a: x (colour: red)\n---\n", 3, "unknown option 'colour'"),
    ],
)
def test_broken_front_matter_names_its_line(text: str, line: int, message: str) -> None:
    with pytest.raises(DiscoveryError, match=message) as raised:
        parse_prompt(text, "p.md")
    assert (raised.value.path, raised.value.line) == ("p.md", line)


def test_content_detection(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# hi")
    (tmp_path / "b.bin").write_bytes(b"\x00\x01\xff")
    (tmp_path / "c").write_text("plain words")
    (tmp_path / "d.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    assert detect_content(tmp_path / "a.md") == ("text/markdown", False)
    assert detect_content(tmp_path / "b.bin") == ("application/octet-stream", True)
    assert detect_content(tmp_path / "c") == ("text/plain", False)
    assert detect_content(tmp_path / "d.png") == ("image/png", True)


def test_resources_are_discovered_incrementally_and_keep_user_keys(tmp_path: Path) -> None:
    source, config = tmp_path / "resources", tmp_path / "config"
    (source / "docs").mkdir(parents=True)
    (source / "docs" / "guide.md").write_text("# Guide\n")
    (source / "{id}.txt").write_text("{{ id }}\n")
    (source / ".hidden").write_text("skipped")
    statuses, errors = discover_items(RESOURCES, source, config)
    assert not errors
    assert [(s.name, s.path, s.change) for s in statuses] == [
        ("docs__guide_md", "docs/guide.md", "created"),
        ("id_txt", "{id}.txt", "created"),
    ]
    guide = config / "resources" / "docs__guide_md.json"
    data = json.loads(guide.read_text())
    data["resource_config"].update(uri="docs://guide", title="The guide")
    data["enabled"] = False
    guide.write_text(json.dumps(data))
    assert [s.change for s in discover_items(RESOURCES, source, config)[0]] == ["unchanged", "unchanged"]
    (source / "docs" / "guide.md").write_text("# Guide, longer now\n")
    statuses, _ = discover_items(RESOURCES, source, config)
    assert [s.change for s in statuses] == ["updated", "unchanged"]
    kept = json.loads(guide.read_text())
    assert kept["enabled"] is False
    assert (kept["resource_config"]["uri"], kept["resource_config"]["title"]) == ("docs://guide", "The guide")
    os.remove(source / "docs" / "guide.md")
    statuses, _ = discover_items(RESOURCES, source, config)
    assert ("docs__guide_md", "missing") in [(s.name, s.change) for s in statuses]
    assert guide.exists()


def test_a_broken_prompt_keeps_its_last_good_config(tmp_path: Path) -> None:
    source, config = tmp_path / "prompts", tmp_path / "config"
    source.mkdir()
    (source / "ask.md").write_text("---\ndescription: Ask\n---\nHi\n")
    (source / "notes.rst").write_text("not a prompt file")
    discover_items(PROMPTS, source, config)
    good = (config / "prompts" / "ask.json").read_text()
    (source / "ask.md").write_text("---\ndescription: Ask\n@param\n---\nHi\n")
    statuses, errors = discover_items(PROMPTS, source, config)
    assert [(s.name, s.change) for s in statuses] == [("ask", "failed")]
    assert errors[0].line == 3
    assert (config / "prompts" / "ask.json").read_text() == good


def test_a_uri_without_the_files_placeholders_is_refused(tmp_path: Path) -> None:
    source, config = tmp_path / "resources", tmp_path / "config"
    source.mkdir()
    (source / "{id}.txt").write_text("x")
    discover_items(RESOURCES, source, config)
    path = config / "resources" / "id_txt.json"
    data = json.loads(path.read_text())
    data["resource_config"]["uri"] = "things://fixed"
    path.write_text(json.dumps(data))
    # The file is unchanged: discover leaves its config alone (without reading it through
    # the models), and build, which reads every config through them, refuses it.
    statuses, errors = discover_items(RESOURCES, source, config)
    assert [status.change for status in statuses] == ["unchanged"] and not errors
    with pytest.raises(ConfigError, match="must hold the same placeholders"):
        load_model(path, ResourceConfig)
    _, errors = discover_items(RESOURCES, source, config, force=True)
    assert "must hold the same placeholders" in str(errors[0])


def test_ask_lines_are_values_asked_of_the_user() -> None:
    text = "---\n@param topic: The topic\n@ask audience: Who reads it? (required: true)\n"
    text += "@ask pages: How long (type: integer, default: 1)\n---\nbody\n"
    declaration = parse_prompt(text, "brief.md")
    assert [a.name for a in declaration.arguments] == ["topic"]
    assert [(a.name, a.type, a.required) for a in declaration.asks] == [
        ("audience", "string", True),
        ("pages", "integer", False),
    ]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("@ask tags: Tags (type: array)", "the user can be asked for string, integer, number, boolean"),
        ("@param topic: again", "'topic' is declared twice"),
    ],
)
def test_ask_mistakes_name_the_line(line: str, reason: str) -> None:
    with pytest.raises(DiscoveryError) as raised:
        parse_prompt(f"---\n@param topic: The topic\n{line}\n---\nbody\n", "brief.md")
    assert reason in str(raised.value) and "brief.md:3" in str(raised.value)
