"""The fallback: opted-in executables served as one `args` array, their `--help` as description."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from toolkiln.build.merge import build_catalog
from toolkiln.conventions.fallback.read import clean_text
from toolkiln.discover import discover_tools
from toolkiln.errors import BuildError, ConfigError
from toolkiln.fallback_globs import check_fallback_pattern, is_opted_in, read_fallback_patterns
from toolkiln.files import load_catalog, load_server_config, load_tool_config, tool_config_path
from toolkiln.model import Parameter

CONVERT = """\
    #!/bin/sh
    if [ "$1" = "--help" ]; then
      printf '\\033[1mUsage:\\033[0m convert.sh [-f FORMAT] FILE...\\n\\n'
      printf 'Convert files between formats.\\n  -f FORMAT   the format to write\\n'
      exit 0
    fi
    exec cat -- "$@"
"""  # hands its arguments on to another program: no reader can say what they are
PLAIN_TOOL = """\
    #!/bin/sh
    echo "usage: $0 [options] [NAME]"
"""


def opt_in(config_dir: Path, *patterns: str) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "server.json").write_text(json.dumps({"discovery": {"fallback": list(patterns)}}))


def tool_names(tools_dir: Path, config_dir: Path) -> dict[str, str]:
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, report.errors
    return {tool.name: tool.script_path for tool in report.tools}


# --- which files are opted in ----------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("bin/tool", True),
        ("bin/deep/er/tool.sh", True),
        ("binary/tool", False),
        ("legacy/convert.sh", True),
        ("legacy/other.sh", False),
        ("scripts/a.sh", True),
        ("scripts/a.py", False),
        ("scripts/sub/a.sh", False),
        ("tool1.py", True),
        ("x/y/tool2.py", True),
        ("lib/[x].sh", False),
    ],
)
def test_patterns_name_files_and_folders(path: str, expected: bool) -> None:
    patterns = ["bin/", "legacy/convert.sh", "scripts/*.sh", "**/tool?.py"]
    assert is_opted_in(path, patterns) is expected


def test_a_folder_without_a_slash_or_a_glob_matching_a_folder_means_everything_under_it() -> None:
    assert is_opted_in("bin/sub/x", ["bin"])
    assert is_opted_in("tools/a/b/c.sh", ["tools/*"])
    assert is_opted_in("anything/at/all", ["."])
    assert not is_opted_in("bin/x", [])


@pytest.mark.parametrize("pattern", ["", "  ", "/usr/bin/", "~/bin", "../other/", "bin/../../x", "a\\b"])
def test_patterns_outside_the_tools_folder_are_refused(pattern: str) -> None:
    with pytest.raises(ValueError, match=r"tools folder|empty"):
        check_fallback_pattern(pattern)


def test_the_key_is_read_as_plain_json_and_checked(tmp_path: Path) -> None:
    assert read_fallback_patterns(tmp_path) == ()  # no server.json: nothing opted in
    (tmp_path / "server.json").write_text('{"format_version": 1}')
    assert read_fallback_patterns(tmp_path) == ()
    opt_in(tmp_path, "bin/", "x.sh")
    assert read_fallback_patterns(tmp_path) == ("bin/", "x.sh")
    (tmp_path / "server.json").write_text('{"discovery": {"fallback": "bin/"}}')
    with pytest.raises(ConfigError, match="must be a list of paths or globs"):
        read_fallback_patterns(tmp_path)
    opt_in(tmp_path, "/etc/")
    with pytest.raises(ConfigError, match="relative to the tools folder"):
        read_fallback_patterns(tmp_path)


def test_the_server_config_model_validates_the_key(tmp_path: Path) -> None:
    opt_in(tmp_path, "bin/", "scripts/*.sh")
    assert load_server_config(tmp_path).discovery.fallback == ["bin/", "scripts/*.sh"]
    opt_in(tmp_path, "../elsewhere/")
    with pytest.raises(ConfigError, match=r"discovery\.fallback"):
        load_server_config(tmp_path)
    (tmp_path / "server.json").write_text('{"discovery": {"fallbak": ["bin/"]}}')
    with pytest.raises(ConfigError, match="fallbak"):
        load_server_config(tmp_path)


# --- discovery ---------------------------------------------------------------------------


def test_off_by_default(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("bin/convert.sh", CONVERT)
    make_tool("plain", PLAIN_TOOL)
    assert tool_names(tools_dir, config_dir) == {}


def test_an_opted_in_executable_is_a_tool_of_args_with_its_help_as_description(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("bin/convert.sh", CONVERT)
    opt_in(config_dir, "bin/")
    assert tool_names(tools_dir, config_dir) == {"bin__convert": "bin/convert.sh"}
    script = load_tool_config(tool_config_path(config_dir, "bin__convert")).script_config
    assert script.dialect == "fallback"
    assert script.description == (
        "Usage: convert.sh [-f FORMAT] FILE...\n\n"
        "Convert files between formats.\n  -f FORMAT   the format to write"
    )
    [args] = script.parameters
    assert (args.name, args.type, args.items, args.default, args.required) == (
        "args",
        "array",
        "string",
        [],
        False,
    )
    assert "no shell" in args.description


def test_a_file_the_globs_do_not_match_is_not_served(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("scripts/a.sh", PLAIN_TOOL)
    make_tool("scripts/b.py", "#!/usr/bin/env python3\nprint('usage: b [options]')\n")
    make_tool("scripts/sub/c.sh", PLAIN_TOOL)
    make_tool("other/d.sh", PLAIN_TOOL)
    opt_in(config_dir, "scripts/*.sh")
    assert tool_names(tools_dir, config_dir) == {"scripts__a": "scripts/a.sh"}


def test_declared_files_keep_their_dialect_in_an_opted_in_folder(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "bin/helpjson.sh",
        """\
        #!/bin/sh
        echo '{"description": "Speaks help-json"}'
        echo '{}' >&2
        """,
    )
    make_tool("bin/annotated.sh", "#!/bin/bash\n# Tool: annotated\n# Description: Annotated\necho hi\n")
    make_tool("bin/plain.sh", PLAIN_TOOL)
    opt_in(config_dir, "bin/")
    tool_names(tools_dir, config_dir)
    dialects = {
        name: load_tool_config(tool_config_path(config_dir, name)).script_config.dialect
        for name in ("bin__helpjson", "bin__annotated", "bin__plain")
    }
    assert dialects == {
        "bin__helpjson": "help-json",
        "bin__annotated": "annotations",
        "bin__plain": "fallback",
    }


def test_in_an_opted_in_folder_only_runnable_files_count(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("bin/no_bit.sh", "echo 'usage: no_bit.sh WORD'\n", executable=False)
    make_tool("bin/README.md", "# the tools\n", executable=False)
    make_tool("bin/notes", "some notes\n", executable=False)
    make_tool("bin/settings.json", "{}\n")  # executable, but data
    opt_in(config_dir, "bin/")
    assert tool_names(tools_dir, config_dir) == {"bin__no_bit": "bin/no_bit.sh"}
    script = load_tool_config(tool_config_path(config_dir, "bin__no_bit")).script_config
    assert script.description == "usage: no_bit.sh WORD"  # probed through bash, by its extension


@pytest.mark.parametrize(
    "body",
    [
        "#!/bin/sh\nexit 0\n",  # prints nothing
        "#!/bin/sh\necho 'cannot open --help' >&2\nexit 1\n",  # failed, and no usage
    ],
)
def test_no_help_text_gives_a_description_naming_the_file(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, body: str
) -> None:
    make_tool("legacy/run-it", body)
    opt_in(config_dir, "legacy/run-it")
    tool_names(tools_dir, config_dir)
    description = load_tool_config(tool_config_path(config_dir, "legacy__run-it")).script_config.description
    assert description.startswith("Runs the program legacy/run-it with the command-line arguments")


def test_a_usage_printed_on_stderr_with_a_failing_status_is_the_description(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "old.sh",
        "#!/bin/sh\necho 'old.sh: unknown option --help' >&2\necho 'Usage: old.sh FILE' >&2\nexit 2\n",
    )
    opt_in(config_dir, "old.sh")
    tool_names(tools_dir, config_dir)
    description = load_tool_config(tool_config_path(config_dir, "old")).script_config.description
    # the shell's error is not the author's text; the usage below it is
    assert description == "Usage: old.sh FILE"


def test_a_help_that_hangs_is_served_with_a_generic_description_and_a_warning(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("slow", "#!/bin/sh\nsleep 30\n")
    opt_in(config_dir, "slow")
    report = discover_tools(tools_dir, config_dir, probe_timeout=0.5)
    assert [tool.name for tool in report.tools] == ["slow"]
    assert any("did not finish" in warning.reason for warning in report.warnings)
    assert load_tool_config(tool_config_path(config_dir, "slow")).script_config.description.startswith("Runs")


def test_the_help_text_is_plain_and_capped() -> None:
    hostile = "A\x1b[31mred\x1b[0m \x1b]0;title\x07B_\bBo\bold\r\nbell\x07 \u202eevil\u202c\ttab\x00"
    assert clean_text(hostile) == "Ared BBold\nbell evil    tab"
    long = "\n".join(f"line {n} " + "x" * 50 for n in range(200))
    capped = clean_text(long)
    assert len(capped) < 4100
    assert capped.endswith("[help text cut at 4000 characters]")


def test_build_leaves_out_a_tool_no_longer_opted_in(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("bin/convert.sh", CONVERT)
    opt_in(config_dir, "bin/")
    tool_names(tools_dir, config_dir)
    assert [tool.name for tool in build_catalog(config_dir, tools_dir).tools] == ["bin__convert"]
    opt_in(config_dir)  # the user takes the opt-in back; the per-tool config is still there
    report = build_catalog(config_dir, tools_dir)
    assert report.tools == []
    assert any("no longer in discovery.fallback" in warning for warning in report.warnings)
    assert load_catalog(config_dir / "tools.json").tools == []


def test_a_malformed_opt_in_stops_discovery_and_build(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("bin/convert.sh", CONVERT)
    opt_in(config_dir, "/bin/")
    with pytest.raises(ConfigError, match="relative to the tools folder"):
        discover_tools(tools_dir, config_dir)
    (config_dir / "tools").mkdir()
    with pytest.raises(BuildError, match=r"discovery\.fallback"):
        build_catalog(config_dir, tools_dir)


def test_the_args_parameter_round_trips() -> None:
    parameter = Parameter(name="args", type="array", items="string", default=[])
    assert Parameter.model_validate(parameter.model_dump()) == parameter


def test_opting_in_later_reads_a_file_the_index_knew_as_no_tool(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("bin/convert.sh", CONVERT)
    assert tool_names(tools_dir, config_dir) == {}  # remembered as "not a tool"
    opt_in(config_dir, "bin/")
    assert tool_names(tools_dir, config_dir) == {"bin__convert": "bin/convert.sh"}


def test_an_opted_in_file_another_dialect_claims_and_rejects_reaches_the_fallback(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    # argc's tags without argc's eval, and an agent tools.py whose functions have no
    # docstrings: their dialects say "not a tool"; opted in, the fallback serves them.
    make_tool("bin/tagged.sh", '#!/bin/sh\n# @describe Tags\n# @option --x\necho "usage: tagged [--x X]"\n')
    make_tool("bin/tools.py", "#!/usr/bin/env python3\ndef helper(x):\n    return x\nprint('usage: tools')\n")
    make_tool("other/tagged.sh", '#!/bin/sh\n# @describe Tags\n# @option --x\necho "usage"\n')
    opt_in(config_dir, "bin/")
    report = discover_tools(tools_dir, config_dir, probes="unconfined")
    assert {t.name: t.script_path for t in report.tools} == {
        "bin__tagged": "bin/tagged.sh",
        "bin__tools": "bin/tools.py",
    }
    assert [(v.path, v.kind) for v in report.not_tools] == [("other/tagged.sh", "argc-no-eval")]
