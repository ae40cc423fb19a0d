"""discover_tools on real tool folders: both dialects, incremental, user keys, failures."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool
from toolkiln.discover import DiscoveryReport, ToolStatus, discover_tools
from toolkiln.errors import DiscoveryError
from toolkiln.files import load_tool_config, tool_config_path
from toolkiln.model import Parameter

PROBE_TIMEOUT = 5.0

ANNOTATED = """
#!/bin/bash
# Tool: pwod
# Description: Password of the Day
# @param function: What to do (type: string, required: true, enum: generate|verify)
# @param length: Password length (type: integer, default: 16, min: 8, max: 64)
echo "$@"
"""


def help_tool(counter: Path, description: str = "Counts", options: str | None = None) -> str:
    """A help-json script that appends a line to `counter` each time `--help` runs."""
    options = options or '{"n": {"value_type": "integer", "default_value": 1}}'
    return f"""
        #!/bin/sh
        if [ "$1" = "--help" ]; then
          echo probed >> '{counter}'
          echo '{{"description": "{description}"}}'
          echo '{options}' >&2
          exit 0
        fi
        echo run
        """


def probes(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


def discover(tools_dir: Path, config_dir: Path, **options: Any) -> DiscoveryReport:
    """Discovery with probes run as the user, so that scripts can count them in a file
    (confined probes: tests/security/test_confinement.py)."""
    options.setdefault("probe_timeout", PROBE_TIMEOUT)
    options.setdefault("probes", "unconfined")
    return discover_tools(tools_dir, config_dir, **options)


def changes(report: DiscoveryReport) -> dict[str, str]:
    return {tool.name: tool.change for tool in report.tools}


def config_file(config_dir: Path, name: str) -> Path:
    return tool_config_path(config_dir, name)


def edit_config(path: Path, edit: Any) -> None:
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data, indent=2))


@pytest.fixture
def counter(tmp_path: Path) -> Path:
    return tmp_path / "probe-count"


# --- both dialects -----------------------------------------------------------------------


def test_both_dialects_are_found(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, counter: Path
) -> None:
    make_tool("pwod/run.sh", ANNOTATED)
    make_tool("utils/count.sh", help_tool(counter))
    report = discover(tools_dir, config_dir)
    assert report.errors == []
    assert report.tools == [
        ToolStatus("pwod", "pwod/run.sh", "Password of the Day", False, True, "created"),
        ToolStatus("utils__count", "utils/count.sh", "Counts", False, True, "created"),
    ]
    pwod = load_tool_config(config_file(config_dir, "pwod")).script_config
    assert (pwod.dialect, pwod.script_type, pwod.script_path) == ("annotations", "shell", "pwod/run.sh")
    assert [p.name for p in pwod.parameters] == ["function", "length"]
    assert pwod.parameters[1] == Parameter(
        name="length", type="integer", description="Password length", default=16, min=8, max=64
    )
    count = load_tool_config(config_file(config_dir, "utils__count"))
    assert count.script_config.dialect == "help-json"
    assert count.script_config.parameters == [Parameter(name="n", type="integer", default=1)]
    assert count.enabled is True
    assert count.source is not None
    assert count.source.size == (tools_dir / "utils/count.sh").stat().st_size
    assert sorted(p.name for p in (config_dir / "tools").iterdir()) == ["pwod.json", "utils__count.json"]


def test_annotated_scripts_are_never_run(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    marker = tools_dir.parent / "ran"
    make_tool("t/run.sh", f"#!/bin/sh\n# Tool: t\n# Description: d\ntouch '{marker}'\n")
    report = discover(tools_dir, config_dir)
    assert changes(report) == {"t": "created"}
    assert not marker.exists()


def test_requirements_file_of_a_tool_folder(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("pwod/run.sh", ANNOTATED)
    (tools_dir / "pwod/requirements.txt").write_text("requests\n")
    discover(tools_dir, config_dir)
    assert load_tool_config(config_file(config_dir, "pwod")).script_config.requirements_file == (
        "pwod/requirements.txt"
    )


def test_no_tools_folder(tmp_path: Path, config_dir: Path) -> None:
    with pytest.raises(DiscoveryError) as caught:
        discover(tmp_path / "nowhere", config_dir)
    assert str(caught.value) == f"no tools folder at {tmp_path / 'nowhere'}; create it or pass --tools-dir"


def test_an_empty_tools_folder(tools_dir: Path, config_dir: Path) -> None:
    report = discover(tools_dir, config_dir)
    assert (report.tools, report.errors, report.warnings) == ([], [], [])
    assert not config_dir.exists()


# --- incremental ------------------------------------------------------------------------


def test_an_unchanged_tool_is_not_probed_again(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, counter: Path
) -> None:
    make_tool("count.sh", help_tool(counter))
    assert changes(discover(tools_dir, config_dir)) == {"count": "created"}
    written = config_file(config_dir, "count").read_bytes()
    assert probes(counter) == 1

    report = discover(tools_dir, config_dir)
    assert changes(report) == {"count": "unchanged"}
    assert probes(counter) == 1
    assert config_file(config_dir, "count").read_bytes() == written


def test_touching_a_script_neither_probes_nor_rewrites(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, counter: Path
) -> None:
    script = make_tool("count.sh", help_tool(counter))
    discover(tools_dir, config_dir)
    config = config_file(config_dir, "count")
    before = config.read_bytes(), config.stat().st_mtime_ns
    later = script.stat().st_mtime_ns + 10_000_000_000
    os.utime(script, ns=(later, later))

    for _ in range(2):
        assert changes(discover(tools_dir, config_dir)) == {"count": "unchanged"}
    assert probes(counter) == 1
    assert (config.read_bytes(), config.stat().st_mtime_ns) == before


def test_editing_a_script_probes_it_again(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, counter: Path
) -> None:
    make_tool("count.sh", help_tool(counter))
    discover(tools_dir, config_dir)
    make_tool(
        "count.sh",
        help_tool(counter, "Counts better", '{"step": {"value_type": "float", "default_value": 0.5}}'),
    )
    report = discover(tools_dir, config_dir)
    assert changes(report) == {"count": "updated"}
    assert probes(counter) == 2
    script = load_tool_config(config_file(config_dir, "count")).script_config
    assert script.description == "Counts better"
    assert script.parameters == [Parameter(name="step", type="number", default=0.5)]


def test_editing_an_annotated_header_updates_the_config(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("pwod/run.sh", ANNOTATED)
    discover(tools_dir, config_dir)
    make_tool("pwod/run.sh", ANNOTATED.replace("default: 16", "default: 20"))
    assert changes(discover(tools_dir, config_dir)) == {"pwod": "updated"}
    assert load_tool_config(config_file(config_dir, "pwod")).script_config.parameters[1].default == 20


def test_an_edit_that_changes_nothing_declared_still_records_the_new_fingerprint(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, counter: Path
) -> None:
    script = make_tool("count.sh", help_tool(counter))
    discover(tools_dir, config_dir)
    script.write_text(script.read_text() + "# a comment\n")
    assert changes(discover(tools_dir, config_dir)) == {"count": "updated"}
    assert probes(counter) == 2
    assert changes(discover(tools_dir, config_dir)) == {"count": "unchanged"}
    assert probes(counter) == 2


def test_force_probes_again(make_tool: MakeTool, tools_dir: Path, config_dir: Path, counter: Path) -> None:
    make_tool("count.sh", help_tool(counter))
    discover(tools_dir, config_dir)
    written = config_file(config_dir, "count").read_bytes()
    report = discover(tools_dir, config_dir, force=True)
    assert probes(counter) == 2
    # Same declaration: nothing worth writing.
    assert changes(report) == {"count": "unchanged"}
    assert config_file(config_dir, "count").read_bytes() == written


def test_a_moved_script_with_the_same_name_is_read_again(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("greet.sh", "#!/bin/sh\n# Tool: t\n# Description: shell greeting\n")
    discover(tools_dir, config_dir)
    (tools_dir / "greet.sh").unlink()
    make_tool("greet.py", "#!/usr/bin/env python3\n# Tool: t\n# Description: python greeting\n")
    assert changes(discover(tools_dir, config_dir)) == {"greet": "updated"}
    script = load_tool_config(config_file(config_dir, "greet")).script_config
    assert (script.script_path, script.script_type, script.description) == (
        "greet.py",
        "python",
        "python greeting",
    )


# --- user-owned keys ---------------------------------------------------------------------


def test_user_keys_survive_rediscovery(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, counter: Path
) -> None:
    make_tool("count.sh", help_tool(counter))
    discover(tools_dir, config_dir)
    path = config_file(config_dir, "count")
    user_script_keys = {
        "name": "my_counter",
        "title": "My counter",
        "requires_confirmation": True,
        "read_only": True,
        "destructive": False,
        "idempotent": True,
        "open_world": False,
        "timeout_seconds": 12.5,
        "interactive": True,
        "workspace_config": {
            "allowed_paths": ["/data"],
            "allow_absolute_paths": True,
            "follow_symlinks": False,
        },
    }

    def edit(data: dict[str, Any]) -> None:
        data["enabled"] = False
        data["tags"] = ["math", "demo"]
        data["script_config"].update(user_script_keys)
        data["script_config"]["description"] = "edited by hand"

    edit_config(path, edit)
    make_tool("count.sh", help_tool(counter, "New description", '{"m": {"value_type": "boolean"}}'))
    report = discover(tools_dir, config_dir)

    assert changes(report) == {"my_counter": "updated"}
    assert probes(counter) == 2
    data = json.loads(path.read_text())
    assert data["enabled"] is False
    assert data["tags"] == ["math", "demo"]
    for key, value in user_script_keys.items():
        assert data["script_config"][key] == value, key
    # A description edited by hand is the user's correction, kept (discover/corrections.py);
    # discovery's other keys, untouched by the user, are refreshed.
    assert data["script_config"]["description"] == "edited by hand"
    assert data["script_config"]["parameters"] == [
        {"name": "m", "type": "boolean", "description": "", "required": False, "default": False}
    ]
    assert not (config_dir / "tools/my_counter.json").exists()


def test_user_edits_of_an_unchanged_tool_are_left_alone(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("pwod/run.sh", ANNOTATED)
    discover(tools_dir, config_dir)
    path = config_file(config_dir, "pwod")
    edit_config(path, lambda data: data.update(enabled=False))
    edited = path.read_bytes()
    assert changes(discover(tools_dir, config_dir)) == {"pwod": "unchanged"}
    assert path.read_bytes() == edited


# --- missing, broken, malformed ----------------------------------------------------------


def test_a_vanished_script_is_reported_and_its_config_kept(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    script = make_tool("pwod/run.sh", ANNOTATED)
    make_tool("other.sh", "#!/bin/sh\n# Tool: t\n# Description: stays\n")
    discover(tools_dir, config_dir)
    kept = config_file(config_dir, "pwod").read_bytes()
    script.unlink()

    report = discover(tools_dir, config_dir)
    assert report.errors == []
    assert ToolStatus("pwod", "pwod/run.sh", "Password of the Day", True, False, "missing") in report.tools
    assert changes(report) == {"other": "unchanged", "pwod": "missing"}
    assert config_file(config_dir, "pwod").read_bytes() == kept


def test_a_vanished_script_with_an_invalid_config(tools_dir: Path, config_dir: Path) -> None:
    (config_dir / "tools").mkdir(parents=True)
    (config_dir / "tools/ghost.json").write_text("{not json")
    report = discover(tools_dir, config_dir)
    assert report.tools == [ToolStatus("ghost", "?", "(config file is invalid)", True, False, "missing")]
    assert (config_dir / "tools/ghost.json").read_text() == "{not json"


def test_a_script_that_stops_declaring_a_tool(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, counter: Path
) -> None:
    make_tool("count.sh", help_tool(counter))
    discover(tools_dir, config_dir)
    kept = config_file(config_dir, "count").read_bytes()
    make_tool("count.sh", "#!/bin/sh\nexit 1\n")
    report = discover(tools_dir, config_dir)
    assert report.tools == [ToolStatus("count", "count.sh", "Counts", True, True, "missing")]
    [warning] = report.warnings
    assert str(warning) == (
        "count.sh: no longer declares a tool: `--help` printed nothing (exit status 1); "
        "its config count.json is kept"
    )
    assert config_file(config_dir, "count").read_bytes() == kept


def test_a_broken_script_is_reported_and_the_others_discovered(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("good/run.sh", ANNOTATED)
    make_tool(
        "bad/run.sh", "#!/bin/sh\n# Tool: t\n# Description: d\n# @param n: x (type: integer, default: many)\n"
    )
    report = discover(tools_dir, config_dir)
    [error] = report.errors
    assert (error.path, error.line) == ("bad/run.sh", 4)
    assert str(error) == "bad/run.sh:4: default 'many' is not a valid integer"
    assert changes(report) == {"good": "created"}
    assert not config_file(config_dir, "bad").exists()


def test_a_broken_script_keeps_its_previous_config(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("pwod/run.sh", ANNOTATED)
    discover(tools_dir, config_dir)
    kept = config_file(config_dir, "pwod").read_bytes()
    make_tool("pwod/run.sh", ANNOTATED.replace("type: integer", "type: integr"))
    report = discover(tools_dir, config_dir)
    [error] = report.errors
    assert str(error).startswith("pwod/run.sh:5: unknown type 'integr'")
    assert changes(report) == {"pwod": "failed"}
    assert config_file(config_dir, "pwod").read_bytes() == kept
    # Fixed again: discovered again.
    make_tool("pwod/run.sh", ANNOTATED.replace("default: 16", "default: 32"))
    assert changes(discover(tools_dir, config_dir)) == {"pwod": "updated"}


def test_a_hanging_help_json_script_does_not_stop_discovery(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("slow.sh", "#!/bin/sh\nsleep 60\n")
    make_tool("pwod/run.sh", ANNOTATED)
    report = discover(tools_dir, config_dir, probe_timeout=0.5)
    [verdict] = report.not_tools
    assert (verdict.path, verdict.kind) == ("slow.sh", "help-timeout")
    assert "did not finish within 0.5 s" in verdict.reason
    assert changes(report) == {"pwod": "created"}


def test_a_malformed_existing_config_is_reported_and_not_overwritten(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("pwod/run.sh", ANNOTATED)
    make_tool("other.sh", "#!/bin/sh\n# Tool: t\n# Description: fine\n")
    discover(tools_dir, config_dir)
    path = config_file(config_dir, "pwod")
    broken = path.read_text().replace('"enabled": true', '"enabled": "sometimes"')
    path.write_text(broken)
    make_tool("pwod/run.sh", ANNOTATED.replace("default: 16", "default: 20"))

    report = discover(tools_dir, config_dir)
    [error] = report.errors
    message = str(error)
    assert f"{path}:" in message
    assert "enabled" in message
    assert "fix the file or delete it to rediscover the tool" in message
    assert path.read_text() == broken
    assert changes(report) == {"other": "unchanged"}


def test_a_config_with_invalid_json_names_its_line(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("pwod/run.sh", ANNOTATED)
    (config_dir / "tools").mkdir(parents=True)
    path = config_file(config_dir, "pwod")
    path.write_text('{\n  "enabled": true,\n  oops\n}\n')
    [error] = discover(tools_dir, config_dir).errors
    assert str(error).startswith(f"{path}:3: invalid JSON: ")
    assert path.read_text() == '{\n  "enabled": true,\n  oops\n}\n'


# --- list mode ---------------------------------------------------------------------------


def test_write_false_writes_nothing(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, counter: Path
) -> None:
    make_tool("pwod/run.sh", ANNOTATED)
    make_tool("count.sh", help_tool(counter))
    report = discover(tools_dir, config_dir, write=False)
    assert report.tools == [
        ToolStatus("count", "count.sh", "Counts", False, True, "created"),
        ToolStatus("pwod", "pwod/run.sh", "Password of the Day", False, True, "created"),
    ]
    assert not config_dir.exists()


def test_write_false_leaves_existing_configs_alone(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("pwod/run.sh", ANNOTATED)
    discover(tools_dir, config_dir)
    kept = config_file(config_dir, "pwod").read_bytes()
    make_tool("pwod/run.sh", ANNOTATED.replace("Password of the Day", "Changed"))
    report = discover(tools_dir, config_dir, write=False)
    assert report.tools == [ToolStatus("pwod", "pwod/run.sh", "Changed", True, True, "updated")]
    assert config_file(config_dir, "pwod").read_bytes() == kept
    assert sorted(p.name for p in (config_dir / "tools").iterdir()) == ["pwod.json"]


# --- scanning ---------------------------------------------------------------------------


def test_a_run_sh_folder_is_one_tool(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, counter: Path
) -> None:
    make_tool("pwod/run.sh", ANNOTATED)
    make_tool("pwod/helper.sh", help_tool(counter))
    make_tool("pwod/lib/inner.sh", help_tool(counter))
    make_tool("pwod/sub/run.sh", "#!/bin/sh\n# Tool: t\n# Description: nested entry point\n")
    report = discover(tools_dir, config_dir)
    assert changes(report) == {"pwod": "created"}
    assert probes(counter) == 0


def test_a_help_json_run_sh_does_not_hide_its_folder(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, counter: Path
) -> None:
    # Only a claim made by reading (annotations) makes a folder one tool; a run.sh
    # that needs a probe may turn out not to be a tool, so its siblings are offered too.
    make_tool("box/run.sh", help_tool(counter))
    make_tool("box/other.sh", help_tool(counter))
    assert changes(discover(tools_dir, config_dir)) == {"box": "created", "box__other": "created"}
    assert probes(counter) == 2


def test_an_executable_run_sh_that_is_no_tool_hides_nothing(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, counter: Path
) -> None:
    make_tool("pkg/run.sh", "#!/bin/sh\necho plain script\n")
    make_tool("pkg/sibling.sh", help_tool(counter))
    report = discover(tools_dir, config_dir)
    assert changes(report) == {"pkg__sibling": "created"}
    assert not report.errors


def test_a_non_executable_file_with_a_tool_header_is_not_a_tool(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("notes/README.md", "# Tool: notes\n\nSome markdown.\n", executable=False)
    report = discover(tools_dir, config_dir)
    assert changes(report) == {}
    assert not report.errors


def test_a_non_executable_annotated_run_sh_is_reported_with_the_fix(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("lazy/run.sh", "#!/bin/sh\n# Tool: lazy\n# Description: forgot chmod\n", executable=False)
    report = discover(tools_dir, config_dir)
    assert changes(report) == {}
    assert [error.path for error in report.errors] == ["lazy/run.sh"]
    assert "chmod +x" in str(report.errors[0])


def test_a_folder_whose_run_sh_is_not_a_tool_offers_its_other_files(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("kit/run.sh", "just notes\n", executable=False)
    make_tool("kit/a.sh", "#!/bin/sh\n# Tool: t\n# Description: a\n")
    assert changes(discover(tools_dir, config_dir)) == {"kit__a": "created"}


@pytest.mark.parametrize(
    "folder",
    [
        ".hidden",
        ".git",
        "__pycache__",
        "node_modules",
        "TEMPLATE",
        "venv",
        "site-packages",
        "deps/site-packages",
    ],
)
def test_skipped_folders(make_tool: MakeTool, tools_dir: Path, config_dir: Path, folder: str) -> None:
    make_tool(f"{folder}/tool/run.sh", "#!/bin/sh\n# Tool: t\n# Description: hidden\n")
    make_tool(f"{folder}/loose.sh", "#!/bin/sh\n# Tool: t\n# Description: hidden\n")
    make_tool("seen.sh", "#!/bin/sh\n# Tool: t\n# Description: seen\n")
    assert changes(discover(tools_dir, config_dir)) == {"seen": "created"}


def test_a_virtual_environment_is_skipped(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("env/pyvenv.cfg", "home = /usr/bin\n", executable=False)
    make_tool("env/bin/activate", "#!/bin/sh\n# Tool: not a tool\n")
    make_tool("envless/tool.sh", "#!/bin/sh\n# Tool: t\n# Description: seen\n")
    assert changes(discover(tools_dir, config_dir)) == {"envless__tool": "created"}


def test_hidden_files_are_skipped(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool(".secret.sh", "#!/bin/sh\n# Tool: t\n# Description: hidden\n")
    assert changes(discover(tools_dir, config_dir)) == {}


def test_depth_limit_of_five_folders(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    make_tool("a/b/c/d/e/deep.sh", "#!/bin/sh\n# Tool: t\n# Description: five folders down\n")
    make_tool("a/b/c/d/e/f/deeper.sh", "#!/bin/sh\n# Tool: t\n# Description: six folders down\n")
    with caplog.at_level(logging.WARNING, logger="toolkiln"):
        report = discover(tools_dir, config_dir)
    assert changes(report) == {"a__b__c__d__e__deep": "created"}
    assert any("a/b/c/d/e/f: deeper than 5 folders" in record.getMessage() for record in caplog.records)


def test_symlinked_and_special_files_do_not_break_the_scan(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("real.sh", "#!/bin/sh\n# Tool: t\n# Description: real\n")
    (tools_dir / "dangling.sh").symlink_to(tools_dir / "nowhere.sh")
    os.mkfifo(tools_dir / "pipe")
    assert changes(discover(tools_dir, config_dir)) == {"real": "created"}


def test_non_executable_data_files_are_ignored(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, counter: Path
) -> None:
    make_tool("notes.txt", "hello\n", executable=False)
    make_tool("data.json", "{}\n")
    make_tool("plain.sh", help_tool(counter), executable=False)
    assert changes(discover(tools_dir, config_dir)) == {}
    assert probes(counter) == 0


def test_executables_that_are_not_tools_are_skipped_quietly(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("helper.sh", "#!/bin/sh\necho 'usage: helper'\nexit 2\n")
    report = discover(tools_dir, config_dir)
    assert (report.tools, report.errors, report.warnings) == ([], [], [])


def test_two_scripts_with_one_name(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("utils/calc.py", "#!/usr/bin/env python3\n# Tool: t\n# Description: python\n")
    make_tool("utils/calc.sh", "#!/bin/sh\n# Tool: t\n# Description: shell\n")
    report = discover(tools_dir, config_dir)
    [error] = report.errors
    assert error.path == "utils/calc.sh"
    assert str(error) == (
        "utils/calc.sh: both utils/calc.py and utils/calc.sh would be the tool 'utils__calc'; rename one"
    )
    assert changes(report) == {"utils__calc": "created"}
    assert (
        load_tool_config(config_file(config_dir, "utils__calc")).script_config.script_path == "utils/calc.py"
    )


def test_a_folder_path_and_a_flat_name_can_collide(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("a/b.sh", "#!/bin/sh\n# Tool: t\n# Description: nested\n")
    make_tool("a__b.sh", "#!/bin/sh\n# Tool: t\n# Description: flat\n")
    [error] = discover(tools_dir, config_dir).errors
    assert "a/b.sh" in str(error) and "a__b.sh" in str(error)


# --- parallel probing and progress -----------------------------------------------------------


def test_many_tools_probed_in_parallel(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    total = 24
    for index in range(total):
        make_tool(f"group{index % 3}/tool{index}.sh", help_tool(tmp_path / f"count{index}", f"Tool {index}"))
    progress: list[tuple[int, int]] = []
    report = discover(tools_dir, config_dir, jobs=6, on_progress=lambda done, of: progress.append((done, of)))
    assert report.errors == []
    assert len(report.tools) == total
    assert {tool.change for tool in report.tools} == {"created"}
    for index in range(total):
        config = load_tool_config(config_file(config_dir, f"group{index % 3}__tool{index}"))
        assert config.script_config.description == f"Tool {index}"
        assert probes(tmp_path / f"count{index}") == 1
    assert sorted(progress) == [(done, total) for done in range(1, total + 1)]
    assert [tool.name for tool in report.tools] == sorted(tool.name for tool in report.tools)


def test_progress_counts_only_what_must_be_read(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("a.sh", "#!/bin/sh\n# Tool: t\n# Description: a\n")
    make_tool("b.sh", "#!/bin/sh\n# Tool: t\n# Description: b\n")
    discover(tools_dir, config_dir)
    make_tool("c.sh", "#!/bin/sh\n# Tool: t\n# Description: c\n")
    progress: list[tuple[int, int]] = []
    discover(tools_dir, config_dir, on_progress=lambda done, of: progress.append((done, of)))
    assert progress == [(1, 1)]
    progress.clear()
    discover(tools_dir, config_dir, on_progress=lambda done, of: progress.append((done, of)))
    assert progress == []
