"""The annotations dialect: `# @param` headers read as text, never executed."""

from __future__ import annotations

import textwrap
from pathlib import Path

import anyio
import pytest

from tests.conftest import MakeTool
from toolkiln.conventions.annotations import read as annotations
from toolkiln.conventions.annotations.read import header_text, parse_header, parse_param_line
from toolkiln.conventions.base import Candidate
from toolkiln.errors import DiscoveryError
from toolkiln.model import Parameter

PATH = "pwod/run.sh"


def param(text: str) -> Parameter:
    return parse_param_line(text, PATH, 7)


def param_error(text: str, line: int = 7) -> DiscoveryError:
    with pytest.raises(DiscoveryError) as caught:
        parse_param_line(text, PATH, line)
    assert caught.value.path == PATH
    assert caught.value.line == line
    assert str(caught.value).startswith(f"{PATH}:{line}: ")
    return caught.value


def header(body: str) -> str:
    return textwrap.dedent(body).lstrip("\n")


def header_error(body: str) -> DiscoveryError:
    with pytest.raises(DiscoveryError) as caught:
        parse_header(header(body), PATH)
    assert caught.value.path == PATH
    return caught.value


# --- types ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("string", "string"),
        ("integer", "integer"),
        ("number", "number"),
        ("boolean", "boolean"),
        ("array", "array"),
        ("object", "object"),
        ("any", "any"),
        ("str", "string"),
        ("text", "string"),
        ("int", "integer"),
        ("float", "number"),
        ("double", "number"),
        ("bool", "boolean"),
        ("list", "array"),
        ("dict", "object"),
        ("json", "any"),
        ("Integer", "integer"),
        ("STRING", "string"),
    ],
)
def test_every_type_and_alias(written: str, expected: str) -> None:
    assert param(f"x: desc (type: {written})").type == expected


def test_type_defaults_to_string_and_optional() -> None:
    p = param("name: Who to greet")
    assert (p.name, p.type, p.description, p.required, p.default) == (
        "name",
        "string",
        "Who to greet",
        False,
        None,
    )


def test_seeds_example_parses() -> None:
    p = param("function: The function to execute (type: string, required: true)")
    assert p == Parameter(
        name="function", type="string", description="The function to execute", required=True
    )


def test_option_keys_and_values_are_case_insensitive() -> None:
    p = param("x: desc (Type: Integer, Required: TRUE)")
    assert (p.type, p.required) == ("integer", True)


def test_spaces_around_punctuation_are_optional() -> None:
    p = param("x:desc(type:integer,default:3)")
    assert (p.description, p.type, p.default) == ("desc", "integer", 3)


def test_empty_description_is_allowed() -> None:
    p = param("x: (type: integer, required: true)")
    assert (p.description, p.type, p.required) == ("", "integer", True)


def test_unknown_type_is_an_error_listing_the_known_ones() -> None:
    error = param_error("x: desc (type: strin)")
    assert "unknown type 'strin'" in error.reason
    assert "string, integer, number, boolean, array, object, any" in error.reason


# --- required and default ------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "expected"),
    [("true", True), ("false", False), ("yes", True), ("no", False), ("1", True), ("0", False)],
)
def test_required_spellings(written: str, expected: bool) -> None:
    assert param(f"x: desc (type: string, required: {written})").required is expected


@pytest.mark.parametrize("written", ["maybe", "True!", "2", ""])
def test_bad_required_is_an_error(written: str) -> None:
    error = param_error(f"x: desc (type: string, required: {written})")
    assert error.reason == f"required must be true or false, not {written!r}"


def test_optional_with_default() -> None:
    p = param("count: Number of iterations (type: integer, required: false, default: 10)")
    assert (p.required, p.default) == (False, 10)


def test_required_ignores_its_default_even_of_the_wrong_type() -> None:
    # seeds/000: "If required is true, default_value is ignored".
    p = param("x: desc (type: integer, required: true, default: 3)")
    assert (p.required, p.default) == (True, None)
    assert param("x: desc (type: integer, required: true, default: lots)").default is None


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ('"hello world"', "hello world"),
        ("'single'", "single"),
        ("bare words", "bare words"),
        ('"a, b, c"', "a, b, c"),
        ('"f(x)"', "f(x)"),
        ('"a)b"', "a)b"),
        ('"a(b"', "a(b"),
        ("(a)", "(a)"),
        ('""', ""),
        ("", ""),
        ("42", "42"),
        ('"x" ', "x"),
    ],
)
def test_string_defaults_quoted_or_bare(written: str, expected: str) -> None:
    p = param(f"x: desc (type: string, default: {written})")
    assert p.default == expected
    assert p.description == "desc"


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("Bob's report", "Bob's report"),
        ("it's, well", None),
        ('a"b', 'a"b'),
        ('"don\'t, stop"', "don't, stop"),
        ("'a, b'", "a, b"),
    ],
)
def test_a_quote_inside_a_bare_value_is_just_a_character(written: str, expected: str | None) -> None:
    # An apostrophe used to open a quote that never closed, and the whole option group
    # silently became description: no type, no default, no error.
    if expected is None:
        error = param_error(f"x: desc (type: string, default: {written})")
        assert error.reason == "expected `key: value` in the options, got 'well'"
        return
    p = param(f"x: desc (type: string, default: {written}, required: false)")
    assert (p.description, p.default, p.required) == ("desc", expected, False)


def test_apostrophes_in_the_description_and_in_enum_values() -> None:
    p = param("x: The user's choice (type: string, enum: don't|do, default: don't)")
    assert (p.description, p.enum, p.default) == ("The user's choice", ["don't", "do"], "don't")


def test_quoted_default_may_hold_commas_and_the_options_that_follow_still_count() -> None:
    p = param('x: desc (type: string, default: "a, required: true", required: false)')
    assert (p.default, p.required) == ("a, required: true", False)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("type: integer, default: -3", -3),
        ("type: number, default: 1.5", 1.5),
        ("type: number, default: 2", 2),
        ("type: boolean, default: true", True),
        ("type: boolean, default: no", False),
        ("type: array, default: [1, 2]", [1, 2]),
        ('type: array, default: ["a, b", "c"]', ["a, b", "c"]),
        ('type: object, default: {"a": 1, "b": [1, 2]}', {"a": 1, "b": [1, 2]}),
        ('type: object, default: {"f(x)": "(y, z)"}', {"f(x)": "(y, z)"}),
        ("type: any, default: hello", "hello"),
        ('type: any, default: {"k": null}', {"k": None}),
        ("type: any, default: 7", 7),
    ],
)
def test_typed_defaults(text: str, expected: object) -> None:
    assert param(f"x: desc ({text})").default == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("type: integer, default: abc", "default 'abc' is not a valid integer"),
        ("type: integer, default: 1.5", "parameter 'x': default 1.5: is not of type integer"),
        ("type: integer, default: true", "parameter 'x': default True: is not of type integer"),
        ('type: integer, default: "5"', "parameter 'x': default '5': is not of type integer"),
        ("type: number, default: ten", "default 'ten' is not a valid number"),
        ("type: boolean, default: maybe", "default must be true or false, not 'maybe'"),
        ("type: array, default: {}", "parameter 'x': default {}: is not of type array"),
        ("type: array, default: [1", "default '[1' is not a valid array"),
        ("type: object, default: [1]", "parameter 'x': default [1]: is not of type object"),
    ],
)
def test_default_of_the_wrong_type_is_an_error(text: str, reason: str) -> None:
    assert param_error(f"x: desc ({text})").reason == reason


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_non_json_numbers_are_rejected(value: str) -> None:
    # They would end up as NaN/Infinity in tools.json, which JSON clients cannot read.
    error = param_error(f"x: desc (type: number, default: {value})")
    assert "NaN and Infinity are not JSON" in error.reason
    error = param_error(f"x: desc (type: number, max: {value})")
    assert "'max' must be a finite number" in error.reason


# --- enum ------------------------------------------------------------------------------


def test_enum_with_pipes() -> None:
    p = param("mode: desc (type: string, enum: a|b|c, default: b)")
    assert (p.type, p.enum, p.default) == ("string", ["a", "b", "c"], "b")


def test_enum_values_are_trimmed() -> None:
    assert param("mode: desc (enum: fast | slow )").enum == ["fast", "slow"]


def test_type_enum_is_a_string_enum() -> None:
    p = param("mode: desc (type: enum, enum: generate|verify)")
    assert (p.type, p.enum) == ("string", ["generate", "verify"])


def test_values_is_a_synonym_of_enum() -> None:
    assert param("mode: desc (values: on|off)").enum == ["on", "off"]


@pytest.mark.parametrize("text", ["enum:", "enum: ", "type: integer, enum: "])
def test_an_empty_enum_is_an_error(text: str) -> None:
    assert param_error(f"x: desc ({text})").reason == "parameter 'x': 'enum' must list at least one value"


def test_type_enum_without_values_is_an_error() -> None:
    assert param_error("mode: desc (type: enum)").reason == "type enum needs its values: `enum: a|b|c`"


def test_enum_as_json_list() -> None:
    p = param('mode: desc (type: string, enum: ["a, b", "c|d"], default: "c|d")')
    assert (p.enum, p.default) == (["a, b", "c|d"], "c|d")


def test_integer_enum_with_pipes_and_as_json() -> None:
    p = param("level: desc (type: integer, enum: 1|2|3, default: 2)")
    assert (p.enum, p.default) == ([1, 2, 3], 2)
    assert param("level: desc (type: integer, enum: [1, 2, 3])").enum == [1, 2, 3]


def test_number_enum() -> None:
    assert param("ratio: desc (type: number, enum: 0.5|1|1.5)").enum == [0.5, 1, 1.5]


def test_string_enum_of_digits_stays_strings() -> None:
    assert param("code: desc (type: string, enum: [1, 2])").enum == ["1", "2"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "type: string, enum: a|b|c, default: d",
            "parameter 'x': default 'd': is not one of ['a', 'b', 'c']",
        ),
        ("type: integer, enum: 1|2, default: 3", "parameter 'x': default 3: is not one of [1, 2]"),
        ("type: integer, enum: 1|two", "enum 'two' is not a valid integer"),
        ("type: integer, enum: 1|2.5", "parameter 'x': enum value 2.5 is not of type integer"),
        ("type: boolean, enum: true|false", "parameter 'x': 'enum' does not apply to type boolean"),
        ("type: array, enum: [1]", "parameter 'x': 'enum' does not apply to type array"),
    ],
)
def test_bad_enum(text: str, reason: str) -> None:
    assert param_error(f"x: desc ({text})").reason == reason


# --- min / max / items ------------------------------------------------------------------


def test_min_max_on_integers() -> None:
    p = param("n: desc (type: integer, default: 16, min: 8, max: 64)")
    assert (p.min, p.max, p.default) == (8, 64, 16)


def test_min_max_on_numbers_may_be_fractional() -> None:
    p = param("r: desc (type: number, min: 0.5, max: 2.5, default: 1.5)")
    assert (p.min, p.max) == (0.5, 2.5)


def test_min_max_on_strings_are_lengths() -> None:
    p = param('s: desc (type: string, min: 2, max: 5, default: "abc")')
    assert (p.min, p.max) == (2, 5)


def test_min_max_on_arrays_are_item_counts() -> None:
    p = param("a: desc (type: array, items: integer, min: 1, max: 3, default: [1, 2])")
    assert (p.items, p.min, p.max, p.default) == ("integer", 1, 3, [1, 2])


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "type: integer, min: 1, max: 10, default: 11",
            "parameter 'x': default 11: is above the maximum of 10",
        ),
        ("type: integer, min: 5, default: 4", "parameter 'x': default 4: is below the minimum of 5"),
        (
            'type: string, min: 2, max: 5, default: "a"',
            "parameter 'x': default 'a': is below the minimum of 2 characters",
        ),
        (
            'type: string, max: 2, default: "abc"',
            "parameter 'x': default 'abc': is above the maximum of 2 characters",
        ),
        ("type: array, min: 1, default: []", "parameter 'x': default []: is below the minimum of 1 items"),
        ("type: integer, min: 10, max: 1", "parameter 'x': 'min' (10) is greater than 'max' (1)"),
        ("type: integer, min: abc", "min 'abc' is not a valid number"),
        ("type: boolean, min: 1", "parameter 'x': 'min'/'max' do not apply to type boolean"),
        ("type: object, max: 1", "parameter 'x': 'min'/'max' do not apply to type object"),
        ("type: string, min: -1", "parameter 'x': a length limit must be a whole number >= 0, not -1"),
        ("type: array, max: 1.5", "parameter 'x': a length limit must be a whole number >= 0, not 1.5"),
    ],
)
def test_bad_bounds(text: str, reason: str) -> None:
    assert param_error(f"x: desc ({text})").reason == reason


def test_items_type_is_checked_against_the_default() -> None:
    error = param_error('x: desc (type: array, items: integer, default: ["a"])')
    assert error.reason == "parameter 'x': default ['a']: items must be of type integer"


def test_items_accepts_aliases() -> None:
    assert param("x: desc (type: list, items: int)").items == "integer"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("type: array, items: widget", "unknown type 'widget'"),
        ("type: string, items: integer", "parameter 'x': 'items' applies only to type array"),
    ],
)
def test_bad_items(text: str, reason: str) -> None:
    assert param_error(f"x: desc ({text})").reason.startswith(reason)


# --- descriptions and option groups --------------------------------------------------


@pytest.mark.parametrize(
    "description",
    [
        "A description (with a note)",
        "Call f(x) for each item",
        "Ends with f(x)",
        "Example (e.g. foo: bar)",
        "Nested ((twice))",
    ],
)
def test_parentheses_that_are_not_options_stay_in_the_description(description: str) -> None:
    p = param(f"x: {description}")
    assert (p.description, p.type) == (description, "string")


def test_description_with_parentheses_before_the_options() -> None:
    p = param("x: Call f(x) (for each) item (type: integer, default: 2)")
    assert (p.description, p.type, p.default) == ("Call f(x) (for each) item", "integer", 2)


def test_a_description_with_a_colon_keeps_its_text() -> None:
    p = param("url: Where to go: a full URL (type: string, required: true)")
    assert (p.description, p.required) == ("Where to go: a full URL", True)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("x: desc (type: string, color: red)", "unknown option 'color'"),
        ("x: desc (type: integer, type: string)", "option 'type' is given twice"),
        ('x: desc (type: string, default: "a", default: "b")', "option 'default' is given twice"),
        ("x: desc (type: string, oops)", "expected `key: value` in the options, got 'oops'"),
        ("x: desc (type: string, default: 1, 2: 3)", "expected `key: value` in the options, got '2: 3'"),
    ],
)
def test_malformed_options(text: str, reason: str) -> None:
    error = param_error(text)
    assert error.reason.startswith(reason)


def test_unknown_option_lists_the_known_ones() -> None:
    error = param_error("x: desc (type: string, colour: red)")
    assert error.reason == (
        "unknown option 'colour' (known options: "
        "type, required, default, enum, examples, min, max, items, secret, header, multiline)"
    )


def test_a_line_without_name_and_colon_is_an_error() -> None:
    error = param_error("x desc (type: string)", line=3)
    assert "expected `# @param name: description (type: T" in error.reason


# --- names ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["PATH", "LD_PRELOAD", "PYTHONPATH", "HOME", "IFS", "BASH_ENV", "LC_ALL"])
def test_sensitive_environment_names_are_errors(name: str) -> None:
    error = param_error(f"{name}: desc (type: string)")
    assert error.reason.startswith(
        f"parameter name {name!r} would overwrite the environment variable {name} of the script, and "
    )
    assert f"; rename the parameter (the script may still set {name} itself from it)" in error.reason


@pytest.mark.parametrize("name", ["path", "home", "Path", "ld_preload", "python_version", "my_PATH"])
def test_harmless_names_are_fine(name: str) -> None:
    assert param(f"{name}: desc (type: string)").name == name


@pytest.mark.parametrize("name", ["1x", "a.b", "é", "x" * 65])
def test_invalid_parameter_names(name: str) -> None:
    error = param_error(f"{name}: desc")
    assert f"parameter name {name!r} must start with a letter or _" in error.reason


def test_dashes_and_underscores_are_allowed_in_names() -> None:
    assert param("dry-run: desc (type: boolean, default: false)").name == "dry-run"
    assert param("_private: desc").name == "_private"


# --- whole headers --------------------------------------------------------------------


def test_full_header() -> None:
    declaration = parse_header(
        header(
            """
            #!/bin/bash
            # Tool: pwod
            # Title: Password of the Day
            # Description: Generate deterministic passwords
            # Version: 1.2
            #
            # @param function: The function to execute (type: string, required: true, enum: generate|verify)
            # @param length: Password length (type: integer, default: 16, min: 8, max: 64)
            # @param verbose: Say more (type: boolean, default: false)

            set -eu
            echo hi
            """
        ),
        PATH,
    )
    assert declaration.dialect == "annotations"
    assert declaration.description == "Generate deterministic passwords"
    assert declaration.title == "Password of the Day"
    assert declaration.version == "1.2"
    assert [p.name for p in declaration.parameters] == ["function", "length", "verbose"]
    assert declaration.parameters[0].enum == ["generate", "verify"]
    assert declaration.parameters[1].default == 16
    assert declaration.parameters[2].default is False


def test_header_without_title_or_version() -> None:
    declaration = parse_header("#!/bin/sh\n# Tool: t\n# Description: d\n", PATH)
    assert (declaration.title, declaration.version, declaration.parameters) == (None, None, [])


def test_first_description_wins_and_field_names_are_case_insensitive() -> None:
    declaration = parse_header("# DESCRIPTION:  first  \n# description: second\n", PATH)
    assert declaration.description == "first"


def test_header_ends_at_the_first_non_comment_line() -> None:
    text = header(
        """
        #!/bin/bash
        # Description: d
        # @param a: first (type: integer)

        # @param b: still the header, after a blank line (type: string)
        echo start
        # @param c: not the header (type: widget)
        """
    )
    declaration = parse_header(text, PATH)
    assert [p.name for p in declaration.parameters] == ["a", "b"]
    assert "# @param c" not in header_text(text)


def test_param_without_space_after_hash_and_indented_comments() -> None:
    declaration = parse_header("#!/bin/sh\n#@param a: x (type: integer)\n    # @param b: y\n", PATH)
    assert [p.name for p in declaration.parameters] == ["a", "b"]


def test_windows_line_endings() -> None:
    declaration = parse_header("#!/bin/sh\r\n# Description: d\r\n# @param a: x (type: integer)\r\n", PATH)
    assert declaration.description == "d"
    assert declaration.parameters[0].type == "integer"


def test_error_in_a_header_names_the_file_line() -> None:
    error = header_error(
        """
        #!/bin/bash
        # Tool: t
        # Description: d
        #
        # @param good: fine (type: integer)
        # @param bad: broken (type: integer, default: many)
        """
    )
    assert error.line == 6
    assert str(error) == f"{PATH}:6: default 'many' is not a valid integer"


def test_duplicate_parameter_names_the_first_line() -> None:
    error = header_error(
        """
        #!/bin/bash
        # @param a: one (type: integer)
        # @param b: two
        # @param a: again (type: string)
        """
    )
    assert error.line == 4
    assert error.reason == "parameter 'a' is already declared on line 2"


def test_sensitive_name_in_a_header_names_its_line() -> None:
    error = header_error(
        """
        #!/bin/bash
        # Description: d
        # @param path: fine
        # @param PATH: not fine
        """
    )
    assert error.line == 4
    assert "would overwrite the environment variable PATH" in error.reason


def test_first_error_in_the_header_is_reported() -> None:
    error = header_error(
        """
        # @param a: x (type: widget)
        # @param b: y (type: gadget)
        """
    )
    assert error.line == 1
    assert "'widget'" in error.reason


# --- the dialect interface -------------------------------------------------------------


def candidate(path: Path, tools_dir: Path) -> Candidate:
    return Candidate(path=path, relative_path=path.relative_to(tools_dir).as_posix(), stat=path.stat())


@pytest.mark.parametrize(
    ("body", "claimed"),
    [
        ("#!/bin/sh\n# Tool: t\necho\n", True),
        ("#!/bin/sh\n# @param a: x\necho\n", True),
        ("#!/bin/sh\n# tool: lower case\n", True),
        ("#!/bin/sh\n# Description: only\necho\n", False),
        ("#!/bin/sh\necho\n# Tool: after the code\n", False),
        ("#!/bin/sh\n# @parameter a: x\n", False),
        ("", False),
    ],
)
def test_claims(make_tool: MakeTool, tools_dir: Path, body: str, claimed: bool) -> None:
    path = make_tool("t.sh", body)
    assert annotations.claims(candidate(path, tools_dir)) is claimed


def test_claims_ignores_binary_files(tools_dir: Path) -> None:
    path = tools_dir / "blob"
    path.write_bytes(b"# Tool: t\n\0\1\2")
    assert annotations.claims(candidate(path, tools_dir)) is False


def test_declare_reads_without_running(make_tool: MakeTool, tools_dir: Path) -> None:
    marker = tools_dir / "ran"
    path = make_tool(
        "t/run.sh",
        f"""
        #!/bin/sh
        # Description: never run at discovery
        # @param n: count (type: integer, default: 1)
        touch {marker}
        """,
    )
    [declaration] = anyio.run(annotations.declare, candidate(path, tools_dir), 0.5)
    assert declaration.description == "never run at discovery"
    assert declaration.parameters[0].default == 1
    assert not marker.exists()


def test_declare_errors_name_the_relative_path(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool("box/run.sh", "#!/bin/sh\n# Tool: box\n# @param LD_PRELOAD: no\n")
    with pytest.raises(DiscoveryError) as caught:
        anyio.run(annotations.declare, candidate(path, tools_dir), 0.5)
    assert str(caught.value).startswith("box/run.sh:3: parameter name 'LD_PRELOAD'")


def test_param_lines_are_read_whatever_their_case() -> None:
    declaration = parse_header("# Tool: t\n# @Param x: d (type: integer)\n", "t.sh")
    assert [(p.name, p.type) for p in declaration.parameters] == [("x", "integer")]


@pytest.mark.parametrize(
    "text",
    ["x: desc (type: integer", "x: desc (type: integer) and more", "x: desc (required: true, then text"],
)
def test_options_that_do_not_close_the_line_are_an_error(text: str) -> None:
    with pytest.raises(DiscoveryError, match="the options must close the line") as raised:
        parse_param_line(text, PATH, 7)
    assert raised.value.line == 7


def test_secret_marks_a_parameter_for_redaction() -> None:
    param = parse_param_line("api_token: The token (type: string, required: true, secret: true)", PATH, 4)
    assert param.secret is True
    assert param.model_dump()["secret"] is True
    assert "secret" not in parse_param_line("x: d (type: string)", PATH, 5).model_dump()


def test_type_path_is_a_string_of_the_path_kind() -> None:
    param = parse_param_line("file: Which file (type: path, required: true)", PATH, 3)
    assert (param.type, param.kind, param.required) == ("string", "path", True)


def test_examples_and_header_options() -> None:
    param = parse_param_line("region: Where (required: true, examples: eu|us, header: Region)", "t.sh", 1)
    assert (param.examples, param.header) == (["eu", "us"], "Region")
    assert param_error("n: count (type: number, header: Count)").reason == (
        "parameter 'n': 'header' applies only to string, integer and boolean parameters"
    )
    assert "letters, digits and - only" in param_error("r: x (header: Bad Name)").reason
