"""build_catalog: per-tool configs -> one compiled, sorted config/tools.json."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.errors import BuildError
from toolkiln.files import catalog_path, load_catalog, tool_config_path, write_tool_config
from toolkiln.model import Catalog, Parameter, ScriptConfig, ToolConfig


def write_config(config_dir: Path, name: str, *, file_name: str | None = None, **changes: Any) -> Path:
    """A per-tool config as discovery would write it, with `changes` applied."""
    script: dict[str, Any] = {
        "name": name,
        "description": f"The {name} tool",
        "script_path": f"{name}.sh",
        "script_type": "shell",
        "dialect": "annotations",
    }
    script.update(changes.pop("script", {}))
    config = ToolConfig(script_config=ScriptConfig.model_validate(script), **changes)
    path = tool_config_path(config_dir, file_name or name)
    write_tool_config(path, config)
    return path


def make_scripts(tools_dir: Path, *names: str) -> None:
    for name in names:
        (tools_dir / f"{name}.sh").write_text("#!/bin/sh\n")


def catalog_json(config_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(catalog_path(config_dir).read_text())
    return data


def test_only_enabled_tools_sorted_by_name(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "zeta", "alpha", "mid", "off")
    for name in ("zeta", "alpha", "mid"):
        write_config(config_dir, name)
    write_config(config_dir, "off", enabled=False)
    report = build_catalog(config_dir, tools_dir)
    assert [tool.name for tool in report.tools] == ["alpha", "mid", "zeta"]
    assert report.disabled == ["tool off"]
    assert report.warnings == []
    assert report.path == catalog_path(config_dir)
    data = catalog_json(config_dir)
    assert data["format_version"] == 1
    assert [tool["name"] for tool in data["tools"]] == ["alpha", "mid", "zeta"]
    assert data["tools_dir"] == "../tools"
    assert load_catalog(catalog_path(config_dir)).tools == report.tools


def test_the_file_is_sorted_indented_and_ends_with_a_newline(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "a")
    write_config(config_dir, "a")
    build_catalog(config_dir, tools_dir)
    text = catalog_path(config_dir).read_text()
    assert text.endswith("}\n")
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_an_empty_configs_folder_gives_an_empty_catalog(tools_dir: Path, config_dir: Path) -> None:
    (config_dir / "tools").mkdir(parents=True)
    report = build_catalog(config_dir, tools_dir)
    assert report.tools == []
    assert catalog_json(config_dir)["tools"] == []


def test_no_configs_folder_is_a_clear_error(tools_dir: Path, config_dir: Path) -> None:
    with pytest.raises(BuildError) as caught:
        build_catalog(config_dir, tools_dir)
    assert (
        str(caught.value) == f"no per-tool configs in {config_dir / 'tools'}; run `toolkiln discover` first"
    )
    assert not catalog_path(config_dir).exists()


def test_input_schema_per_tool(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "all")
    parameters = [
        Parameter(name="text", type="string", description="Some text", required=True, min=1, max=80),
        Parameter(name="mode", type="string", enum=["fast", "slow"], default="fast"),
        Parameter(name="count", type="integer", min=1, max=10, default=3),
        Parameter(name="ratio", type="number", min=0.5, max=2),
        Parameter(name="level", type="integer", enum=[1, 2, 3], required=True),
        Parameter(name="flag", type="boolean", default=False),
        Parameter(name="items", type="array", items="string", min=1, max=5),
        Parameter(name="options", type="object", default={"a": 1}),
        Parameter(name="anything", type="any", description="Whatever"),
    ]
    write_config(config_dir, "all", script={"parameters": [p.model_dump() for p in parameters]})
    [tool] = build_catalog(config_dir, tools_dir).tools
    assert tool.input_schema == {
        "type": "object",
        "additionalProperties": False,
        "required": ["text", "level"],
        "properties": {
            "text": {"type": "string", "description": "Some text", "minLength": 1, "maxLength": 80},
            "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
            "count": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
            "ratio": {"type": "number", "minimum": 0.5, "maximum": 2},
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "flag": {"type": "boolean", "default": False},
            "items": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5},
            "options": {"type": "object", "default": {"a": 1}},
            "anything": {"description": "Whatever"},
        },
    }
    assert tool.parameters == parameters
    assert catalog_json(config_dir)["tools"][0]["input_schema"] == tool.input_schema


def test_a_tool_without_parameters_admits_only_the_empty_object(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "bare")
    write_config(config_dir, "bare")
    [tool] = build_catalog(config_dir, tools_dir).tools
    assert tool.input_schema == {"type": "object", "properties": {}, "additionalProperties": False}


def test_compiled_fields(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "t")
    write_config(
        config_dir,
        "t",
        tags=["a", "b"],
        script={
            "title": "User title",
            "declared_title": "Declared title",
            "read_only": True,
            "destructive": False,
            "idempotent": True,
            "open_world": False,
            "requires_confirmation": True,
            "timeout_seconds": 7.5,
            "version": "1.0",
            "state": True,
            "dialect": "help-json",
            "script_type": "python",
        },
    )
    [tool] = build_catalog(config_dir, tools_dir).tools
    assert tool.title == "User title"
    assert (tool.hints.read_only, tool.hints.destructive, tool.hints.idempotent, tool.hints.open_world) == (
        True,
        False,
        True,
        False,
    )
    assert (tool.requires_confirmation, tool.timeout_seconds, tool.tags) == (True, 7.5, ["a", "b"])
    assert (tool.version, tool.state, tool.dialect, tool.script_type) == ("1.0", True, "help-json", "python")
    assert (tool.script_path, tool.config_file, tool.description) == ("t.sh", "tools/t.json", "The t tool")


def test_the_declared_title_is_used_when_the_user_sets_none(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "t")
    write_config(config_dir, "t", script={"declared_title": "From the script"})
    assert build_catalog(config_dir, tools_dir).tools[0].title == "From the script"


def test_a_user_set_name_is_used(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "utils__calc")
    write_config(config_dir, "calculator", file_name="utils__calc", script={"script_path": "utils__calc.sh"})
    [tool] = build_catalog(config_dir, tools_dir).tools
    assert (tool.name, tool.config_file) == ("calculator", "tools/utils__calc.json")


def test_two_tools_with_one_name_is_an_error_naming_both(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "a", "b")
    first = write_config(config_dir, "same", file_name="a", script={"script_path": "a.sh"})
    second = write_config(config_dir, "same", file_name="b", script={"script_path": "b.sh"})
    with pytest.raises(BuildError) as caught:
        build_catalog(config_dir, tools_dir)
    message = str(caught.value)
    assert f"{second}: the tool name 'same' is also used by {first}" in message
    assert "set a different `name` in one of them" in message
    assert message.endswith(f"{catalog_path(config_dir)} was left as it was.")
    assert not catalog_path(config_dir).exists()


def test_a_disabled_duplicate_is_no_conflict(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "a", "b")
    write_config(config_dir, "same", file_name="a", script={"script_path": "a.sh"})
    write_config(config_dir, "same", file_name="b", script={"script_path": "b.sh"}, enabled=False)
    assert [tool.config_file for tool in build_catalog(config_dir, tools_dir).tools] == ["tools/a.json"]


def test_malformed_configs_fail_with_file_line_and_field_and_keep_the_old_catalog(
    tools_dir: Path, config_dir: Path
) -> None:
    make_scripts(tools_dir, "good", "typed", "extra", "syntax")
    write_config(config_dir, "good")
    build_catalog(config_dir, tools_dir)
    previous = catalog_path(config_dir).read_bytes()

    typed = write_config(config_dir, "typed")
    typed.write_text(typed.read_text().replace('"enabled": true', '"enabled": "perhaps"'))
    extra = write_config(config_dir, "extra")
    extra.write_text(extra.read_text().replace('"dialect":', '"colour": "red",\n    "dialect":'))
    syntax = write_config(config_dir, "syntax")
    syntax.write_text(syntax.read_text().replace('"enabled": true,', '"enabled": true,,'))

    with pytest.raises(BuildError) as caught:
        build_catalog(config_dir, tools_dir)
    lines = str(caught.value).splitlines()

    def line_of(path: Path, needle: str) -> int:
        return next(n for n, text in enumerate(path.read_text().splitlines(), start=1) if needle in text)

    assert (
        f"{extra}:{line_of(extra, 'colour')}: script_config.colour: unknown key (check its spelling)" in lines
    )
    syntax_line = line_of(syntax, '"enabled"')
    assert any(line.startswith(f"{syntax}:{syntax_line}: invalid JSON: ") for line in lines)
    assert any(line.startswith(f"{typed}:{line_of(typed, 'perhaps')}: enabled: ") for line in lines)
    assert lines[-1] == f"{catalog_path(config_dir)} was left as it was."
    assert catalog_path(config_dir).read_bytes() == previous


def test_an_error_in_the_third_parameter_points_at_it(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "t")
    params = [{"name": n, "type": "string"} for n in ("one", "two", "three")]
    path = write_config(config_dir, "t", script={"parameters": params})
    text = path.read_text()
    last = text.rindex('"type": "string"')
    path.write_text(text[:last] + '"type": "widget"' + text[last + len('"type": "string"') :])
    with pytest.raises(BuildError) as caught:
        build_catalog(config_dir, tools_dir)
    line = next(n for n, t in enumerate(path.read_text().splitlines(), start=1) if "widget" in t)
    assert str(caught.value).splitlines()[0].startswith(f"{path}:{line}: script_config.parameters.2.type: ")


def test_an_invalid_parameter_in_a_config_is_reported(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "t")
    path = write_config(config_dir, "t", script={"parameters": [{"name": "n", "type": "integer"}]})
    edited = path.read_text().replace('"type": "integer"', '"type": "integer",\n        "default": "ten"')
    path.write_text(edited)
    with pytest.raises(BuildError) as caught:
        build_catalog(config_dir, tools_dir)
    assert "script_config.parameters.0: parameter 'n': default 'ten': is not of type integer" in str(
        caught.value
    )


def test_building_twice_gives_the_same_bytes(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "a", "b")
    write_config(config_dir, "b", script={"parameters": [{"name": "x", "type": "integer", "default": 1}]})
    write_config(config_dir, "a", tags=["z", "y"])

    def without_timestamp() -> str:
        data = catalog_json(config_dir)
        assert data.pop("generated_at")
        return json.dumps(data, sort_keys=True)

    build_catalog(config_dir, tools_dir)
    first_text, first = catalog_path(config_dir).read_text(), without_timestamp()
    build_catalog(config_dir, tools_dir)
    second_text, second = catalog_path(config_dir).read_text(), without_timestamp()
    assert first == second
    strip = [line for line in first_text.splitlines() if '"generated_at"' not in line]
    assert strip == [line for line in second_text.splitlines() if '"generated_at"' not in line]


def test_a_rebuild_that_changes_nothing_but_the_time_leaves_tools_json_as_it_was(
    tools_dir: Path, config_dir: Path
) -> None:
    """Replicas and `--watch` know a tools.json by its digest: a build a second after the
    last, from the same configs, must not make it another file (the replicas that share
    the folder would refuse news of the first as "a different catalog")."""
    make_scripts(tools_dir, "a", "b")
    write_config(config_dir, "a")
    write_config(config_dir, "b")
    build_catalog(config_dir, tools_dir)
    path = catalog_path(config_dir)
    earlier = json.loads(path.read_text()) | {"generated_at": "2026-01-01T00:00:00+00:00"}
    path.write_text(json.dumps(earlier, indent=2, sort_keys=True) + "\n")
    written = path.read_bytes()
    touched = write_config(config_dir, "a")  # the same config written again: newer than tools.json
    build_catalog(config_dir, tools_dir)
    assert path.read_bytes() == written
    # Its time follows, so doctor does not call the build stale for ever.
    assert path.stat().st_mtime_ns >= touched.stat().st_mtime_ns

    write_config(config_dir, "b", script={"description": "changed"})  # written, with its time
    build_catalog(config_dir, tools_dir)
    rebuilt = catalog_json(config_dir)
    assert rebuilt["generated_at"] != earlier["generated_at"]
    assert [tool["description"] for tool in rebuilt["tools"]] == ["The a tool", "changed"]


@pytest.mark.parametrize("planted", ["fifo", "device"])
def test_a_build_never_reads_a_tools_json_that_is_no_regular_file(
    tools_dir: Path, config_dir: Path, planted: str
) -> None:
    """The unchanged-catalog check reads the last tools.json: a FIFO there would make the
    build wait for ever, a link to /dev/zero read without end. Each is replaced."""
    make_scripts(tools_dir, "a")
    write_config(config_dir, "a")
    path = catalog_path(config_dir)
    if planted == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    build_catalog(config_dir, tools_dir)
    assert path.is_file() and not path.is_symlink()
    assert [tool["name"] for tool in catalog_json(config_dir)["tools"]] == ["a"]


def test_a_tool_whose_script_is_gone_is_left_out_with_a_warning(tools_dir: Path, config_dir: Path) -> None:
    path = write_config(config_dir, "gone")
    report = build_catalog(config_dir, tools_dir)
    assert report.tools == []
    assert report.warnings == [f"{path}: left out, its file {tools_dir / 'gone.sh'} is gone"]
    assert path.exists()


def test_files_other_than_json_are_ignored(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "a")
    write_config(config_dir, "a")
    (config_dir / "tools/notes.txt").write_text("not a config")
    (config_dir / "tools/.a.json.123.tmp").write_text("{half")
    assert [tool.name for tool in build_catalog(config_dir, tools_dir).tools] == ["a"]


def test_discover_then_build(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool(
        "pwod/run.sh",
        """
        #!/bin/bash
        # Tool: pwod
        # Description: Password of the Day
        # @param function: What to do (type: string, required: true, enum: generate|verify)
        # @param length: Length (type: integer, default: 16, min: 8, max: 64)
        """,
    )
    make_tool(
        "utils/add.sh",
        """
        #!/bin/sh
        echo '{"description": "Adds"}'
        echo '{"a": {"value_type": "integer", "required": true}}' >&2
        """,
    )
    assert discover_tools(tools_dir, config_dir).errors == []
    report = build_catalog(config_dir, tools_dir)
    catalog = Catalog.model_validate(catalog_json(config_dir))
    assert [tool.name for tool in catalog.tools] == ["pwod", "utils__add"] == [t.name for t in report.tools]
    pwod, add = catalog.tools
    assert pwod.input_schema["properties"]["function"] == {
        "type": "string",
        "description": "What to do",
        "enum": ["generate", "verify"],
    }
    assert pwod.input_schema["required"] == ["function"]
    assert add.input_schema == {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert report.warnings == []


# --- the built-in run_command tool (config/server.json) ------------------------------------------


def write_server_config(config_dir: Path, **run_command: Any) -> Path:
    path = config_dir / "server.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"run_command": run_command}, indent=2))
    return path


def test_run_command_is_compiled_when_enabled(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "alpha", "zeta")
    write_config(config_dir, "alpha")
    write_config(config_dir, "zeta")
    write_server_config(
        config_dir,
        enabled=True,
        allow=["ls", "git"],
        allow_args={"git": ["status( --short)?"]},
        roots=[".", "work"],
        timeout_seconds=5,
        limits={"cpu_seconds": 3},
    )
    (config_dir / "server.json").write_text(
        json.dumps({"limits": {"memory_mb": 100}, **json.loads((config_dir / "server.json").read_text())})
    )
    report = build_catalog(config_dir, tools_dir)
    catalog = load_catalog(catalog_path(config_dir))
    assert [tool.name for tool in catalog.tools] == ["alpha", "run_command", "zeta"]
    tool = catalog.tools[1]
    assert (tool.dialect, tool.script_path, tool.config_file) == ("command", "", "server.json")
    assert tool.input_schema == {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": tool.parameters[0].description, "minLength": 1,
                        "maxLength": 32768},
            "workdir": {"type": "string", "description": tool.parameters[1].description},
            "stdin": {"type": "string", "description": tool.parameters[2].description},
        },
        "required": ["command"],
        "additionalProperties": False,
    }  # fmt: skip
    assert tool.hints.destructive is True and tool.hints.open_world is True
    assert tool.timeout_seconds == 5
    assert (tool.limits.cpu_seconds, tool.limits.memory_mb) == (3, 100)  # its own over the server's
    assert "Allowed programs: ls, git." in tool.description
    assert "git: its arguments" in tool.description and '["status( --short)?"]' in tool.description
    # The roots are kept relative to the catalog's folder, so the project can move.
    assert catalog.run_command is not None
    assert catalog.run_command.roots == ["..", "../work"]
    assert catalog.run_command.allow == ["ls", "git"]
    assert report.warnings == [
        f"{config_dir / 'server.json'}: run_command.roots: {tools_dir.parent / 'work'} is not a folder"
    ]


def test_run_command_stays_out_while_disabled(tools_dir: Path, config_dir: Path) -> None:
    make_scripts(tools_dir, "alpha")
    write_config(config_dir, "alpha")
    write_server_config(config_dir, enabled=False, allow=["ls"])
    build_catalog(config_dir, tools_dir)
    data = catalog_json(config_dir)
    assert [tool["name"] for tool in data["tools"]] == ["alpha"]
    assert data["run_command"] is None


def test_an_empty_allowlist_is_a_warning(tools_dir: Path, config_dir: Path) -> None:
    (config_dir / "tools").mkdir(parents=True)
    write_server_config(config_dir, enabled=True, name="shell_out")
    report = build_catalog(config_dir, tools_dir)
    assert [tool.name for tool in report.tools] == ["shell_out"]
    assert "run_command.allow is empty: every command will be refused" in report.warnings[0]


def test_run_command_named_like_a_script_tool_is_an_error_naming_both(
    tools_dir: Path, config_dir: Path
) -> None:
    make_scripts(tools_dir, "runner")
    write_config(config_dir, "runner", script={"name": "run_command"})
    build_catalog(config_dir, tools_dir)
    before = catalog_path(config_dir).read_bytes()
    write_server_config(config_dir, enabled=True, allow=["ls"])
    with pytest.raises(BuildError) as caught:
        build_catalog(config_dir, tools_dir)
    message = str(caught.value)
    assert (
        f"{config_dir / 'server.json'}: run_command.name 'run_command' is also the name of the tool in"
        in message
    )
    assert str(config_dir / "tools" / "runner.json") in message
    assert catalog_path(config_dir).read_bytes() == before


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        ({"allow": ["echo"], "allow_args": {"echo": ["ok", "(unclosed"]}},
         ":10: run_command.allow_args.echo.1: '(unclosed' is not a valid regular expression: missing )"),
        ({"allow": ["ls", "bin/tool"]}, ":6: run_command.allow.1: 'bin/tool' is a relative path"),
        ({"deny": ["rm -rf"]}, ":5: run_command.deny.0: 'rm -rf' must be a program's name"),
        ({"allow": ["ls"], "allow_args": {"git": ["status"]}},
         "run_command: allow_args has entries for 'git', which `allow` does not list"),
        ({"roots": []}, "run_command.roots: List should have at least 1 item"),
        ({"name": "run command"}, "run_command.name: tool name 'run command' must be 1 to 64 characters"),
    ],
)  # fmt: skip
def test_bad_run_command_settings_fail_the_build(
    tools_dir: Path, config_dir: Path, settings: dict[str, Any], error: str
) -> None:
    (config_dir / "tools").mkdir(parents=True)
    write_server_config(config_dir, enabled=True, **settings)
    with pytest.raises(BuildError) as caught:
        build_catalog(config_dir, tools_dir)
    assert f"{config_dir / 'server.json'}" in str(caught.value)
    assert error in str(caught.value)
    assert not catalog_path(config_dir).exists()
