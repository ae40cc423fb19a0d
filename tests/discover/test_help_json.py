"""The help-json dialect: `script --help` prints metadata on stdout and options on stderr."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import MakeTool, pids_alive
from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe
from toolkiln.conventions.help_json import read as help_json
from toolkiln.conventions.help_json.read import PROBE_OUTPUT_LIMIT, parse_help
from toolkiln.errors import DiscoveryError
from toolkiln.model import Parameter

PATH = "utils/calc"
META = {"description": "Adds two numbers"}
PROBE_TIMEOUT = 0.5


def options(spec: dict[str, Any]) -> list[Parameter]:
    return parse_help(META, json.dumps(spec), PATH).parameters


def one_option(spec: dict[str, Any]) -> Parameter:
    [parameter] = options({"opt": spec})
    return parameter


def option_error(spec: dict[str, Any]) -> DiscoveryError:
    with pytest.raises(DiscoveryError) as caught:
        options({"opt": spec})
    assert caught.value.path == PATH
    # A line of the probe's stderr is not a line of the script: it is never `path:line`.
    assert caught.value.line is None
    assert str(caught.value).startswith(f"{PATH}: option 'opt' (stderr line 1): ")
    return caught.value


# --- parse_help: metadata --------------------------------------------------------------


def test_seeds_example() -> None:
    text = (
        '{"a": {"description": "First number", "required": true, "value_type": "integer"}, '
        '"b": {"description": "Second number", "required": true, "value_type": "integer"}}'
    )
    declaration = parse_help({"description": "Adds two numbers", "state": False}, text, PATH)
    assert declaration == Declaration(
        dialect="help-json",
        description="Adds two numbers",
        parameters=[
            Parameter(name="a", type="integer", description="First number", required=True),
            Parameter(name="b", type="integer", description="Second number", required=True),
        ],
    )


def test_metadata_title_version_state() -> None:
    declaration = parse_help({"description": "d", "title": "T", "version": 1.5, "state": True}, "{}", PATH)
    assert (declaration.title, declaration.version, declaration.state) == ("T", "1.5", True)


@pytest.mark.parametrize("title", ["", None, 3, ["x"]])
def test_empty_or_odd_titles_are_dropped(title: object) -> None:
    assert parse_help({"description": "d", "title": title}, "{}", PATH).title is None


def test_empty_version_is_no_version() -> None:
    assert parse_help({"description": "d", "version": ""}, "{}", PATH).version is None


def test_state_must_be_a_boolean() -> None:
    with pytest.raises(DiscoveryError) as caught:
        parse_help({"description": "d", "state": "yes"}, "{}", PATH)
    assert str(caught.value) == f"{PATH}: metadata 'state' must be true or false, not 'yes'"


@pytest.mark.parametrize("text", ["", "   \n", "{}"])
def test_no_options(text: str) -> None:
    assert parse_help(META, text, PATH).parameters == []


# --- parse_help: types ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value_type", "expected", "default"),
    [
        ("string", "string", "x"),
        ("integer", "integer", 1),
        ("float", "number", 1.5),
        ("number", "number", 2),
        ("boolean", "boolean", True),
        ("any", "any", {"k": 1}),
        ("array", "array", [1]),
        ("object", "object", {}),
        ("String", "string", "x"),
        ("FLOAT", "number", 0.5),
    ],
)
def test_value_types(value_type: str, expected: str, default: object) -> None:
    for type_key, default_key in [("value_type", "default_value"), ("type", "default")]:
        p = one_option({type_key: value_type, default_key: default})
        assert (p.type, p.default, p.required) == (expected, default, False)


def test_value_type_defaults_to_string() -> None:
    assert one_option({"required": True}).type == "string"


def test_value_type_wins_over_type() -> None:
    assert one_option({"value_type": "integer", "type": "string", "required": True}).type == "integer"


def test_default_value_wins_over_default() -> None:
    assert one_option({"value_type": "integer", "default_value": 1, "default": 2}).default == 1


def test_unknown_value_type() -> None:
    error = option_error({"value_type": "widget", "required": True})
    assert "unknown value_type 'widget' (known: string, integer, float" in error.reason


def test_string_enum() -> None:
    p = one_option({"value_type": {"enum": ["x", "y"]}, "default_value": "x"})
    assert (p.type, p.enum, p.default) == ("string", ["x", "y"], "x")


def test_integer_enum() -> None:
    p = one_option({"value_type": {"enum": [1, 2, 3]}, "default_value": 2})
    assert (p.type, p.enum) == ("integer", [1, 2, 3])


def test_mixed_number_enum() -> None:
    p = one_option({"value_type": {"enum": [1, 2.5]}, "default_value": 2.5})
    assert (p.type, p.enum) == ("number", [1, 2.5])


@pytest.mark.parametrize(
    ("value_type", "reason"),
    [
        ({"enum": []}, 'an enum value_type needs a non-empty list: {"enum": ["a", "b"]}'),
        ({"enum": "a|b"}, 'an enum value_type needs a non-empty list: {"enum": ["a", "b"]}'),
        ({"enum": [1, "x"]}, "enum values must all be strings or all numbers"),
        ({"enum": [True, False]}, "enum values must all be strings or all numbers"),
    ],
)
def test_bad_enums(value_type: object, reason: str) -> None:
    assert option_error({"value_type": value_type, "required": True}).reason.endswith(reason)


def test_enum_object_with_other_keys_is_not_an_enum() -> None:
    error = option_error({"value_type": {"enum": ["a"], "extra": 1}, "required": True})
    assert "unknown value_type" in error.reason


def test_enum_default_not_in_enum() -> None:
    error = option_error({"value_type": {"enum": ["x", "y"]}, "default_value": "z"})
    assert error.reason.endswith("default 'z': is not one of ['x', 'y']")


# --- parse_help: required and defaults --------------------------------------------------


def test_required_without_default() -> None:
    p = one_option({"value_type": "integer", "required": True})
    assert (p.required, p.default) == (True, None)


def test_required_ignores_default_value() -> None:
    # seeds/000: "If required is true, default_value is ignored".
    p = one_option({"value_type": "integer", "required": True, "default_value": "not a number"})
    assert (p.required, p.default) == (True, None)


def test_required_defaults_to_false() -> None:
    assert one_option({"value_type": "integer", "default_value": 3}).required is False


@pytest.mark.parametrize("value_type", ["string", "integer", "float", "array", "object", {"enum": ["a"]}])
def test_optional_without_default_is_an_error(value_type: object) -> None:
    error = option_error({"value_type": value_type})
    assert error.reason.endswith(  # a page the user has, not an internal document's name
        "an optional option needs a 'default_value' of its type (docs/dialects.md, \"The help-json dialect\")"
    )


def test_explicit_null_default_is_no_default() -> None:
    error = option_error({"value_type": "string", "required": False, "default_value": None})
    assert "needs a 'default_value'" in error.reason


def test_optional_boolean_defaults_to_false() -> None:
    p = one_option({"value_type": "boolean"})
    assert (p.required, p.default) == (False, False)


def test_optional_any_has_no_default() -> None:
    p = one_option({"value_type": "any"})
    assert (p.type, p.required, p.default) == ("any", False, None)


@pytest.mark.parametrize("required", ["yes", 1, None])
def test_required_must_be_a_boolean(required: object) -> None:
    error = option_error({"value_type": "string", "required": required})
    assert error.reason.endswith(f"'required' must be true or false, not {required!r}")


@pytest.mark.parametrize(
    ("value_type", "default"),
    [
        ("integer", "3"),
        ("integer", 1.5),
        ("integer", True),
        ("float", "1.5"),
        ("string", 3),
        ("boolean", "false"),
        ("array", {}),
        ("object", []),
    ],
)
def test_default_of_the_wrong_type(value_type: str, default: object) -> None:
    error = option_error({"value_type": value_type, "default_value": default})
    assert "is not of type" in error.reason
    assert repr(default) in error.reason


def test_nan_default_is_rejected() -> None:
    with pytest.raises(DiscoveryError) as caught:
        parse_help(META, '{"opt": {"value_type": "float", "default_value": NaN}}', PATH)
    assert "NaN and Infinity are not JSON" in caught.value.reason


def test_description_must_be_a_string() -> None:
    assert option_error({"description": 3, "required": True}).reason.endswith(
        "'description' must be a string"
    )


# --- parse_help: size -------------------------------------------------------------------


def test_size_on_strings_and_numbers() -> None:
    p = one_option({"value_type": "string", "required": True, "size": {"min": 1, "max": 100}})
    assert (p.min, p.max) == (1, 100)
    p = one_option({"value_type": "float", "default_value": 1.5, "size": {"min": 0.5}})
    assert (p.min, p.max) == (0.5, None)


@pytest.mark.parametrize("size", [3, {"min": 1, "avg": 3}, [1, 2]])
def test_bad_size(size: object) -> None:
    error = option_error({"value_type": "string", "required": True, "size": size})
    assert error.reason.endswith("'size' must be an object with 'min' and/or 'max'")


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        (
            {"value_type": "integer", "default_value": 3, "size": {"min": 5}},
            "default 3: is below the minimum of 5",
        ),
        (
            {"value_type": "integer", "required": True, "size": {"min": 5, "max": 1}},
            "'min' (5) is greater than 'max' (1)",
        ),
        ({"value_type": "boolean", "size": {"max": 1}}, "'min'/'max' do not apply to type boolean"),
        (
            {"value_type": "string", "default_value": "toolong", "size": {"max": 3}},
            "default 'toolong': is above the maximum of 3 characters",
        ),
    ],
)
def test_size_conflicts(spec: dict[str, Any], reason: str) -> None:
    assert option_error(spec).reason.endswith(reason)


# --- parse_help: names, unknown keys, JSON problems ---------------------------------------


@pytest.mark.parametrize("name", ["PATH", "LD_PRELOAD", "PYTHONPATH"])
def test_sensitive_option_names(name: str) -> None:
    with pytest.raises(DiscoveryError) as caught:
        options({name: {"required": True}})
    assert f"would overwrite the environment variable {name}" in caught.value.reason


def test_lowercase_path_is_a_fine_option() -> None:
    assert [p.name for p in options({"path": {"required": True}})] == ["path"]


def test_unknown_keys_are_warnings() -> None:
    declaration = parse_help(
        META, '{"opt": {"value_type": "integer", "default_value": 3, "colour": 1}}', PATH
    )
    assert declaration.parameters[0].default == 3
    [warning] = declaration.warnings
    assert warning.path == PATH
    assert "option 'opt' (stderr line 1): ignoring unknown keys ['colour']" in str(warning)


def test_errors_name_the_stderr_line_of_their_option() -> None:
    text = '{\n  "a": {"value_type": "string", "required": true},\n  "b": {"value_type": "widget"}\n}'
    with pytest.raises(DiscoveryError) as caught:
        parse_help(META, text, PATH)
    assert str(caught.value).startswith(f"{PATH}: option 'b' (stderr line 3): unknown value_type 'widget'")


def test_options_keep_their_order() -> None:
    text = '{"zeta": {"required": true}, "alpha": {"required": true}, "mid": {"required": true}}'
    assert [p.name for p in parse_help(META, text, PATH).parameters] == ["zeta", "alpha", "mid"]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            '{"a": {"required": true,}}',
            "Expecting property name enclosed in double quotes (stderr line 1, column",
        ),
        ('{"a":\n {"required": tru}}', "Expecting value (stderr line 2, column 15)"),
        ("not json at all", "Expecting value (stderr line 1, column 1)"),
    ],
)
def test_invalid_json_says_where(text: str, where: str) -> None:
    with pytest.raises(DiscoveryError) as caught:
        parse_help(META, text, PATH)
    assert caught.value.reason.startswith("the options JSON that `--help` printed on stderr is invalid: ")
    assert where in caught.value.reason


@pytest.mark.parametrize("text", ["[1, 2]", '{"a": 1}', '"text"'])
def test_options_must_be_an_object_of_objects(text: str) -> None:
    with pytest.raises(DiscoveryError) as caught:
        parse_help(META, text, PATH)
    assert "must be a JSON object of objects" in caught.value.reason


def test_log_lines_before_the_options_are_skipped() -> None:
    text = 'INFO starting\nDEBUG {"not": "options"} inline\n{"a": {"required": true}}'
    assert [p.name for p in parse_help(META, text, PATH).parameters] == ["a"]


def test_line_numbers_count_the_skipped_log_lines() -> None:
    text = 'INFO starting\nDEBUG more\n{\n  "a": {"required": true},\n  "b": {"value_type": "string"}\n}'
    with pytest.raises(DiscoveryError) as caught:
        parse_help(META, text, PATH)
    assert caught.value.reason.startswith("option 'b' (stderr line 5): ")


def test_invalid_json_after_log_lines_counts_them() -> None:
    text = 'INFO starting\n{"a": {"required": true,\n "b": }}'
    with pytest.raises(DiscoveryError) as caught:
        parse_help(META, text, PATH)
    assert "(stderr line 3, column 7)" in caught.value.reason


# --- declare: real scripts, probed for real ---------------------------------------------


def candidate(path: Path, tools_dir: Path) -> Candidate:
    return Candidate(path=path, relative_path=path.relative_to(tools_dir).as_posix(), stat=path.stat())


def probe(path: Path, tools_dir: Path, timeout: float = 5.0) -> Declaration | None:
    """The dialect's own work, probed as the user (confined probes: tests/security)."""
    found = anyio.run(help_json.declare, candidate(path, tools_dir), Probe(timeout, "unconfined"))
    assert len(found) <= 1
    return found[0] if found else None


def probe_error(path: Path, tools_dir: Path, timeout: float = 5.0) -> DiscoveryError:
    with pytest.raises(DiscoveryError) as caught:
        probe(path, tools_dir, timeout)
    assert caught.value.path == path.relative_to(tools_dir).as_posix()
    return caught.value


ADD = """
#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Adds two numbers", "title": "Add", "version": "2.0", "state": false}'
  echo '{"a": {"description": "First", "required": true, "value_type": "integer"},
         "b": {"description": "Second", "value_type": "integer", "default_value": 0,
               "size": {"min": -10, "max": 10}}}' >&2
  exit 0
fi
echo $((a + b))
"""


def test_a_proper_tool(make_tool: MakeTool, tools_dir: Path) -> None:
    declaration = probe(make_tool("utils/add.sh", ADD), tools_dir)
    assert declaration is not None
    assert declaration.dialect == "help-json"
    assert (declaration.description, declaration.title, declaration.version) == (
        "Adds two numbers",
        "Add",
        "2.0",
    )
    assert declaration.parameters == [
        Parameter(name="a", type="integer", description="First", required=True),
        Parameter(name="b", type="integer", description="Second", default=0, min=-10, max=10),
    ]


def test_a_python_tool_with_log_lines(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool(
        "greet.py",
        """
        #!/usr/bin/env python3
        import json, sys
        if sys.argv[1:] == ["--help"]:
            print("INFO loading", file=sys.stderr)
            print(json.dumps({"description": "Greets"}))
            print(json.dumps({"name": {"value_type": "string", "default_value": "world"}}), file=sys.stderr)
        """,
    )
    declaration = probe(path, tools_dir)
    assert declaration is not None
    assert declaration.parameters == [Parameter(name="name", type="string", default="world")]


def test_the_probe_runs_in_the_script_folder(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool(
        "deep/where.sh",
        """
        #!/bin/sh
        printf '{"description": "%s"}' "$(pwd -P)"
        """,
    )
    declaration = probe(path, tools_dir)
    assert declaration is not None
    assert declaration.description == str(path.parent.resolve())


def test_the_probe_passes_exactly_help(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool(
        "args.sh",
        """
        #!/bin/sh
        printf '{"description": "%s|%s"}' "$#" "$*"
        """,
    )
    declaration = probe(path, tools_dir)
    assert declaration is not None
    assert declaration.description == "1|--help"


@pytest.mark.parametrize("code", [1, 2, 127])
def test_nonzero_exit_without_metadata_is_not_a_tool(make_tool: MakeTool, tools_dir: Path, code: int) -> None:
    path = make_tool("fails.sh", f"#!/bin/sh\necho 'usage: fails [options]'\nexit {code}\n")
    assert not_a_tool(path, tools_dir) == (
        "plain-help",
        f"answers `--help` with plain text (exit status {code}), not toolkiln's JSON (and not help "
        "toolkiln can serve: its usage line takes `[options]` but the text lists none)",
    )


def not_a_tool(path: Path, tools_dir: Path) -> tuple[str, str]:
    with pytest.raises(NotATool) as caught:
        probe(path, tools_dir)
    return caught.value.kind, caught.value.reason


@pytest.mark.parametrize(
    ("stdout", "where"),
    [
        (
            '{"description": "Adds", }',
            "Expecting property name enclosed in double quotes (stdout line 1, column 25)",
        ),
        ('{"description": "Adds"\n"title": "x"}', "Expecting ',' delimiter (stdout line 2, column 1)"),
        ("{'description': 'single quotes'}", "Expecting property name enclosed in double quotes"),
    ],
)
def test_invalid_metadata_json_is_an_error_with_the_parse_error(
    make_tool: MakeTool, tools_dir: Path, stdout: str, where: str
) -> None:
    path = make_tool("broken.sh", f"#!/bin/sh\ncat <<'EOF'\n{stdout}\nEOF\n")
    error = probe_error(path, tools_dir)
    assert error.reason.startswith("`--help` printed invalid JSON on stdout: ")
    assert where in error.reason


@pytest.mark.parametrize("code", [1, 2, 127])
def test_metadata_with_a_nonzero_exit_is_an_error(make_tool: MakeTool, tools_dir: Path, code: int) -> None:
    path = make_tool("fails.sh", f'#!/bin/sh\necho \'{{"description": "d"}}\'\nexit {code}\n')
    with pytest.raises(DiscoveryError, match=f"printed its metadata but exited {code}; it must exit 0"):
        probe(path, tools_dir)


def test_duplicate_option_names_are_an_error() -> None:
    with pytest.raises(DiscoveryError, match="names 'a' twice"):
        parse_help({"description": "d"}, '{"a": {"type": "string"}, "a": {"type": "integer"}}', "t.sh")


def test_log_lines_after_the_options_json_are_tolerated() -> None:
    declaration = parse_help({"description": "d"}, '{"a": {"required": true}}\nINFO bye\n', "t.sh")
    assert [p.name for p in declaration.parameters] == ["a"]


@pytest.mark.parametrize(
    "stdout",
    [
        "usage: thing [options]",
        "[1, 2]",
        '{"title": "no description"}',
        '{"description": 3}',
        "",
    ],
)
def test_no_metadata_json_is_not_a_tool(make_tool: MakeTool, tools_dir: Path, stdout: str) -> None:
    path = make_tool("plain.sh", f"#!/bin/sh\nprintf '%s' '{stdout}'\n")
    kind, _ = not_a_tool(path, tools_dir)
    expected = {"[": "plain-help", "u": "plain-help", "{": "no-declaration", "": "help-failed"}
    assert kind == expected[stdout[:1]]


def test_bad_options_from_a_real_script(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool(
        "bad.sh",
        """
        #!/bin/sh
        echo '{"description": "d"}'
        echo '{"n": {"value_type": "integer", "default_value": "three"}}' >&2
        """,
    )
    error = probe_error(path, tools_dir)
    assert str(error) == "bad.sh: option 'n' (stderr line 1): default 'three': is not of type integer"


def test_a_hanging_help_is_not_a_tool_and_is_killed(make_tool: MakeTool, tools_dir: Path) -> None:
    pid_file = tools_dir / "sleeper.pid"
    path = make_tool(
        "hangs.sh",
        f"""
        #!/bin/sh
        sleep 60 &
        echo $! > {pid_file}
        wait
        """,
    )
    with pytest.raises(NotATool) as caught:
        probe(path, tools_dir, timeout=PROBE_TIMEOUT)
    assert caught.value.kind == "help-timeout"
    assert caught.value.reason.startswith("`--help` did not finish within 0.5 s")
    assert pids_alive([int(pid_file.read_text())]) == []


def test_endless_output_is_stopped(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool("floods.sh", "#!/bin/sh\nyes flood\n")
    with pytest.raises(NotATool) as caught:
        probe(path, tools_dir, timeout=PROBE_TIMEOUT)
    assert "did not finish within 0.5 s" in caught.value.reason or caught.value.kind == "plain-help"


def test_too_much_output_is_an_error(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool(
        "chatty.sh",
        f"""
        #!/bin/sh
        echo '{{"description": "d"}}'
        head -c {PROBE_OUTPUT_LIMIT + 4096} /dev/zero | tr '\\0' x >&2
        """,
    )
    error = probe_error(path, tools_dir)
    assert error.reason == f"`--help` printed more than {PROBE_OUTPUT_LIMIT} bytes"


def test_a_script_without_shebang_is_a_clear_error(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool("noshebang", 'echo \'{"description": "d"}\'\n')
    error = probe_error(path, tools_dir)
    assert "cannot start" in error.reason
    assert "does it start with a shebang line such as #!/bin/bash?" in error.reason


def test_stdin_is_closed_during_the_probe(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool(
        "reads.sh",
        """
        #!/bin/sh
        input=$(cat)
        printf '{"description": "read [%s]"}' "$input"
        """,
    )
    declaration = probe(path, tools_dir, timeout=PROBE_TIMEOUT * 4)
    assert declaration is not None
    assert declaration.description == "read []"


# --- claims -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "executable", "claimed"),
    [
        ("tool", True, True),
        ("tool.sh", True, True),
        ("tool.py", True, True),
        ("tool.sh", False, False),
        ("data.json", True, False),
        ("README.md", True, False),
        ("notes.TXT", True, False),
        ("settings.yaml", True, False),
    ],
)
def test_claims_executables_that_are_not_data(
    make_tool: MakeTool, tools_dir: Path, name: str, executable: bool, claimed: bool
) -> None:
    path = make_tool(name, "#!/bin/sh\n", executable=executable)
    assert help_json.claims(candidate(path, tools_dir)) is claimed


def test_secret_marks_an_option_for_redaction() -> None:
    declaration = parse_help(
        {"description": "d"}, '{"token": {"required": true, "value_type": "string", "secret": true}}', "t.sh"
    )
    assert declaration.parameters[0].secret is True


def test_value_type_path_is_a_string_of_the_path_kind() -> None:
    [param] = parse_help(
        {"description": "d"}, '{"file": {"required": true, "value_type": "path"}}', "t.sh"
    ).parameters
    assert (param.type, param.kind) == ("string", "path")


SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
    "properties": {
        "name": {"type": "string", "description": "Who"},
        "address": {"$ref": "#/$defs/address"},
        "method": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
    },
    "required": ["name"],
    "if": {"properties": {"method": {"const": "phone"}}, "required": ["method"]},
    "then": {"required": ["phone"]},
    "additionalProperties": False,
}


def test_a_whole_input_schema_is_kept_and_its_properties_become_parameters() -> None:
    declaration = parse_help({"description": "d", "input_schema": SCHEMA}, "", "contact.sh")
    assert declaration.input_schema == SCHEMA
    assert [(p.name, p.type, p.required) for p in declaration.parameters] == [
        ("name", "string", True),
        ("address", "any", False),
        ("method", "string", False),
        ("phone", "string", False),
    ]


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        ({"type": "array"}, "must be a JSON Schema of type object"),
        (
            {"type": "object", "properties": {"n": {"type": 7}}},
            "not a valid JSON Schema at properties/n/type",
        ),
    ],
)
def test_an_input_schema_that_is_not_valid_is_a_discovery_error(schema: dict[str, Any], reason: str) -> None:
    with pytest.raises(DiscoveryError) as raised:
        parse_help({"description": "d", "input_schema": schema}, "", "contact.sh")
    assert reason in str(raised.value) and "contact.sh" in str(raised.value)


def test_arguments_are_checked_against_the_whole_schema(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    from toolkiln.build.merge import build_catalog
    from toolkiln.discover import discover_tools
    from toolkiln.runner import Registry, RunSettings, ToolRunner

    metadata = json.dumps({"description": "Contact someone", "input_schema": SCHEMA})
    make_tool(
        "contact.sh",
        f'#!/bin/sh\n[ "$1" = --help ] && {{ echo \'{metadata}\'; exit 0; }}\necho "$name by $method"\n',
    )
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    runner = ToolRunner(Registry.load(config_dir / "tools.json"), RunSettings())
    refused = anyio.run(runner.call, "contact", {"name": "Ada", "method": "phone"})
    fine = anyio.run(runner.call, "contact", {"name": "Ada", "method": "phone", "phone": "555"})
    assert refused.is_error and "phone" in refused.text
    assert (fine.is_error, fine.text) == (False, "Ada by phone")
    assert runner.registry.tools["contact"].input_schema == SCHEMA
