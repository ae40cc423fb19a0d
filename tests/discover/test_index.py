"""The discovery index (config/.discovery.json): what an unchanged run may skip, and
every change that must still be seen."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeTool
from tests.discover.test_core import changes, config_file, discover, edit_config, probes
from toolkiln.discover.index import INDEX_NAME

ANNOTATED = """
#!/bin/sh
# Tool: greet
# Description: Greets
# @param who: Whom (type: string, required: true)
echo "hi $who"
"""


def plain_help(counter: Path) -> str:
    """An executable that prints usage text, and counts how often it ran."""
    return f'#!/bin/sh\necho run >> {counter}\necho "usage: report [options]"\n'


def test_an_executable_with_plain_help_is_asked_once(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    counter = tmp_path / "runs"
    make_tool("report.sh", plain_help(counter))
    reports = [discover(tools_dir, config_dir) for _ in range(3)]
    assert probes(counter) == 1
    assert [[(v.path, v.kind) for v in report.not_tools] for report in reports] == [
        [("report.sh", "plain-help")]
    ] * 3


def test_an_edited_or_newly_executable_file_is_looked_at_again(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    counter = tmp_path / "runs"
    script = make_tool("report.sh", plain_help(counter), executable=False)
    [verdict] = discover(tools_dir, config_dir).not_tools
    assert verdict.kind == "not-executable"
    script.chmod(0o755)  # the mode is part of what the index compares
    [verdict] = discover(tools_dir, config_dir).not_tools
    assert (verdict.kind, probes(counter)) == ("plain-help", 1)
    make_tool("report.sh", ANNOTATED)
    report = discover(tools_dir, config_dir)
    assert (changes(report), report.not_tools) == ({"report": "created"}, [])


def test_a_timed_out_help_is_asked_once_until_the_file_changes_or_force(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    """Issue 24: an unchanged script whose `--help` timed out was probed again, for the whole
    timeout, by every `discover` and every `serve DIR` start."""
    counter = tmp_path / "runs"
    slow = f"#!/bin/sh\necho run >> {counter}\nsleep 5\n"
    make_tool("slow.sh", slow)
    for _ in range(3):
        [verdict] = discover(tools_dir, config_dir, probe_timeout=0.3).not_tools
        assert verdict.kind == "help-timeout"
        assert "not asked again until the file changes (`toolkiln discover --force`" in verdict.reason
    assert probes(counter) == 1
    assert (
        json.loads((config_dir / INDEX_NAME).read_text())["files"]["slow.sh"]["not_a_tool"][0]
        == "help-timeout"
    )
    discover(tools_dir, config_dir, probe_timeout=0.3, force=True)  # the user asks again
    assert probes(counter) == 2
    make_tool("slow.sh", slow + "# edited\n")
    [verdict] = discover(tools_dir, config_dir, probe_timeout=0.3).not_tools
    assert (verdict.kind, probes(counter)) == ("help-timeout", 3)


def test_a_config_edited_or_deleted_by_the_user_goes_the_long_way(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("greet.sh", ANNOTATED)
    discover(tools_dir, config_dir)
    config = config_file(config_dir, "greet")
    edit_config(config, lambda data: data.update(enabled=False))
    assert changes(discover(tools_dir, config_dir)) == {"greet": "unchanged"}
    assert json.loads(config.read_text())["enabled"] is False  # the user's setting is kept
    config.unlink()
    assert changes(discover(tools_dir, config_dir)) == {"greet": "created"}
    assert config.exists()


def test_a_broken_or_foreign_index_is_ignored_and_rewritten(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    counter = tmp_path / "runs"
    make_tool("greet.sh", ANNOTATED)
    make_tool("report.sh", plain_help(counter))
    discover(tools_dir, config_dir)
    index = config_dir / INDEX_NAME
    for broken in ("{not json", '{"format": 1, "key": "another version", "files": {}}', "[]", '{"files": 3}'):
        index.write_text(broken)
        report = discover(tools_dir, config_dir)
        assert changes(report) == {"greet": "unchanged"}
        assert [v.kind for v in report.not_tools] == ["plain-help"]
    assert probes(counter) == 5  # once, then once per broken index
    assert json.loads(index.read_text())["files"].keys() == {"greet.sh", "report.sh"}


def test_the_run_after_one_that_wrote_configs_finds_its_index_complete(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    """The index a run saves vouches for the configs that run wrote (their stamps, the
    folders they make writable), so the next run, finding nothing changed, neither reads
    the configs again nor rewrites the index (it did both, once, after every writing run:
    0.3 s instead of 0.17 s over 1,000 tools)."""
    make_tool("greet.sh", ANNOTATED)
    make_tool("wave.sh", ANNOTATED.replace("greet", "wave"))
    discover(tools_dir, config_dir)
    index = config_dir / INDEX_NAME
    fences = json.loads(index.read_text())["fences"]
    assert {"tools/greet.json", "tools/wave.json"} <= fences["stamps"].keys()
    assert {folder[1] for folder in fences["folders"]} == {"tool 'greet'", "tool 'wave'"}
    written = index.stat().st_mtime_ns
    assert changes(discover(tools_dir, config_dir)) == {"greet": "unchanged", "wave": "unchanged"}
    assert index.stat().st_mtime_ns == written


def test_a_list_run_writes_no_index(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("greet.sh", ANNOTATED)
    discover(tools_dir, config_dir, write=False)
    assert not (config_dir / INDEX_NAME).exists()


def test_a_removed_file_leaves_the_index(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("greet.sh", ANNOTATED)
    (tools_dir / "notes.md").write_text("# notes\n")
    discover(tools_dir, config_dir)
    (tools_dir / "notes.md").unlink()
    discover(tools_dir, config_dir)
    assert json.loads((config_dir / INDEX_NAME).read_text())["files"].keys() == {"greet.sh"}


def test_an_index_from_another_toolkiln_reads_every_script_again_once(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("greet.sh", ANNOTATED)
    discover(tools_dir, config_dir)
    config = config_file(config_dir, "greet")
    older = {"description": "as an older toolkiln read it", "discovered": None}  # it kept no `discovered`
    edit_config(config, lambda data: data["script_config"].update(older))
    assert changes(discover(tools_dir, config_dir)) == {"greet": "unchanged"}  # the script did not change
    index = config_dir / INDEX_NAME
    index.write_text(json.dumps({**json.loads(index.read_text()), "key": "0.0.1:older"}))
    report = discover(tools_dir, config_dir)  # a new toolkiln: what the script declares is read again
    assert (changes(report), report.tools[0].description) == ({"greet": "updated"}, "Greets")
    assert changes(discover(tools_dir, config_dir)) == {"greet": "unchanged"}
