"""A user's corrections to a tool's config (its description, a parameter's name, type or
description, `enabled`) are kept when discovery reads the script again: after the script
changed, with `discover --force`, and after an upgrade; what the user did not touch
follows the script."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeTool
from toolkiln.discover import discover_tools
from toolkiln.discover.corrections import keep_corrections, snapshot
from toolkiln.model import Parameter, ScriptConfig

CONVERT = """\
    #!/usr/bin/env python3
    \"\"\"Convert a file.\"\"\"
    import sys

    if __name__ == "__main__":
        src = sys.argv[1]
        out = sys.argv[2]
        print(src, out)
"""


def edit_config(config_dir: Path, name: str, edit: dict[str, object], **script: object) -> None:
    path = config_dir / "tools" / f"{name}.json"
    data = json.loads(path.read_text())
    data.update(edit)
    data["script_config"].update(script)
    path.write_text(json.dumps(data))


def script_config(config_dir: Path, name: str) -> dict[str, object]:
    data = json.loads((config_dir / "tools" / f"{name}.json").read_text())
    script: dict[str, object] = data["script_config"]
    script["enabled"] = data["enabled"]
    return script


def test_corrections_are_kept_when_the_script_changes_and_on_force(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    script = make_tool("convert.py", CONVERT)
    discover_tools(tools_dir, config_dir)
    parameters = script_config(config_dir, "convert")["parameters"]
    assert isinstance(parameters, list)
    parameters[0] = {**parameters[0], "name": "source", "description": "The file to convert"}
    parameters[1] = {**parameters[1], "type": "string", "description": ""}
    edit_config(
        config_dir,
        "convert",
        {"enabled": False},
        description="Convert one file, my words",
        parameters=parameters,
    )
    # the script changes: a third word, and the second one is now optional
    script.write_text(
        script.read_text()
        .replace("out = sys.argv[2]", 'out = sys.argv[2] if len(sys.argv) > 2 else "-"')
        .replace(
            "print(src, out)",
            "mode = sys.argv[3] if len(sys.argv) > 3 else 'fast'\n    print(src, out, mode)",
        )
    )
    for force in (False, True):
        report = discover_tools(tools_dir, config_dir, force=force)
        assert not report.errors
        config = script_config(config_dir, "convert")
        assert config["enabled"] is False
        assert config["description"] == "Convert one file, my words"
        parameters = config["parameters"]
        assert isinstance(parameters, list)
        assert [(p["name"], p.get("description"), p["required"]) for p in parameters] == [
            ("source", "The file to convert", True),
            ("out", "", False),  # the script's change to `required` is discovery's
            ("mode", "", False),
        ]


def test_what_the_user_did_not_touch_follows_the_script(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    script = make_tool("convert.py", CONVERT)
    discover_tools(tools_dir, config_dir)
    script.write_text(script.read_text().replace("Convert a file.", "Convert a file to PDF."))
    discover_tools(tools_dir, config_dir)
    assert script_config(config_dir, "convert")["description"] == "Convert a file to PDF."


def test_a_corrected_guess_is_no_longer_listed_as_one() -> None:
    def config(description: str, parameters: list[Parameter], guessed: list[str]) -> ScriptConfig:
        return ScriptConfig(
            name="t",
            description=description,
            script_path="t.sh",
            script_type="shell",
            dialect="shell",
            parameters=parameters,
            guessed=guessed,
            discovered=snapshot(description, parameters),
        )

    guess = Parameter(name="branch_name", option="")
    written = config(
        "Show a branch.", [guess], ["parameters.branch_name.name", "parameters.branch_name.type"]
    )
    edited = written.model_copy(update={"parameters": [guess.model_copy(update={"name": "branch"})]})
    fresh = config("Show a branch.", [guess], ["parameters.branch_name.name", "parameters.branch_name.type"])
    kept = keep_corrections(fresh, edited)
    assert [p.name for p in kept.parameters] == ["branch"]
    assert kept.guessed == ["parameters.branch_name.type"]
    assert kept.discovered == fresh.discovered  # the baseline is discovery's newest reading
