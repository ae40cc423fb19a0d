"""Loading with errors that name file, line and field; atomic writes."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkiln.build.catalog_file import write_catalog
from toolkiln.errors import ConfigError
from toolkiln.files import (
    catalog_path,
    load_catalog,
    load_tool_config,
    locate_key,
    render_json,
    tool_config_path,
    write_json_atomic,
    write_tool_config,
)
from toolkiln.model import Catalog, ScriptConfig, ToolConfig


def a_config(**changes: object) -> ToolConfig:
    return ToolConfig(
        script_config=ScriptConfig(
            name="t",
            script_path="t.sh",
            script_type="shell",
            dialect="annotations",
            parameters=[{"name": "a"}],
        ),
        **changes,  # type: ignore[arg-type]
    )


def load_error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_tool_config(path)
    return str(caught.value)


@pytest.fixture
def written(tmp_path: Path) -> Path:
    path = tmp_path / "tools" / "t.json"
    write_tool_config(path, a_config())
    return path


def replace_in(path: Path, old: str, new: str) -> int:
    """Edit `path` and return the line the edit is on."""
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return text[: text.index(old)].count("\n") + 1


@pytest.fixture
def umask() -> Iterator[None]:
    previous = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(previous)


# --- paths ------------------------------------------------------------------------------


def test_paths(tmp_path: Path) -> None:
    assert catalog_path(tmp_path) == tmp_path / "tools.json"
    assert tool_config_path(tmp_path, "utils__calc") == tmp_path / "tools" / "utils__calc.json"


# --- writing ------------------------------------------------------------------------------


def test_render_json_is_sorted_indented_unicode_and_newline_terminated() -> None:
    assert render_json({"b": 1, "a": ["é", None]}) == '{\n  "a": [\n    "é",\n    null\n  ],\n  "b": 1\n}\n'


def _standard(data: object, sort_keys: bool = True) -> str:
    return json.dumps(data, indent=2, sort_keys=sort_keys, ensure_ascii=False) + "\n"


_TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)))
_DOCUMENTS = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | _TEXT
    | st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15).filter(
        lambda number: number == 0 or abs(number) >= 1e-4
    ),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(_DOCUMENTS, st.booleans())
def test_render_json_writes_what_the_standard_encoder_writes(data: object, sort_keys: bool) -> None:
    """orjson writes the files; a file must read as it always did (and diff as nothing)."""
    assert render_json(data, sort_keys=sort_keys) == _standard(data, sort_keys)


@pytest.mark.parametrize("data", [{"big": 2**70, "a": 1}, {1: "a key that is no string"}, ["\ud800"]])
def test_render_json_leaves_to_the_standard_encoder_what_orjson_refuses(data: object) -> None:
    assert render_json(data) == _standard(data)


def test_write_creates_folders_and_leaves_no_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "data.json"
    for round_ in range(3):
        write_json_atomic(path, {"round": round_})
    assert json.loads(path.read_text()) == {"round": 2}
    assert os.listdir(path.parent) == ["data.json"]


def test_write_keeps_the_mode_of_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "secret.json"
    path.write_text("{}")
    path.chmod(0o600)
    write_json_atomic(path, {"a": 1})
    assert path.stat().st_mode & 0o777 == 0o600
    path.chmod(0o644)
    write_json_atomic(path, {"a": 2})
    assert path.stat().st_mode & 0o777 == 0o644
    assert json.loads(path.read_text()) == {"a": 2}


def test_a_new_file_follows_the_umask(tmp_path: Path, umask: None) -> None:
    path = tmp_path / "new.json"
    write_json_atomic(path, {})
    assert path.stat().st_mode & 0o777 == 0o640


def test_write_replaces_rather_than_rewrites(tmp_path: Path) -> None:
    # Readers holding the old file keep seeing the old content: the new file is a new inode.
    path = tmp_path / "data.json"
    write_json_atomic(path, {"v": 1})
    with path.open() as reader:
        write_json_atomic(path, {"v": 2})
        assert json.load(reader) == {"v": 1}
    assert json.loads(path.read_text()) == {"v": 2}


def test_a_failed_write_leaves_no_temp_file_and_the_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "taken.json"
    target.mkdir()
    (target / "inside").write_text("kept")
    with pytest.raises(OSError):
        write_json_atomic(target, {"a": 1})
    assert sorted(os.listdir(tmp_path)) == ["taken.json"]
    assert (target / "inside").read_text() == "kept"


def test_unserialisable_data_does_not_touch_the_file(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    write_json_atomic(path, {"v": 1})
    with pytest.raises(TypeError):
        write_json_atomic(path, {"v": object()})
    assert json.loads(path.read_text()) == {"v": 1}
    assert os.listdir(tmp_path) == ["data.json"]


def test_tool_config_round_trip(written: Path) -> None:
    assert load_tool_config(written) == a_config()
    assert written.read_text() == render_json(a_config().model_dump(mode="json"))


def test_catalog_round_trip(tmp_path: Path) -> None:
    path = catalog_path(tmp_path)
    write_catalog(path, Catalog(tools_dir="../tools", generated_at="2026-01-01T00:00:00+00:00"))
    assert load_catalog(path) == Catalog(tools_dir="../tools", generated_at="2026-01-01T00:00:00+00:00")


# --- loading errors ------------------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.json"
    assert load_error(path) == f"{path}: cannot read: No such file or directory"


def test_missing_catalog_says_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_catalog(catalog_path(tmp_path))
    assert str(caught.value) == (
        f"{catalog_path(tmp_path)}: no compiled config here; "
        "run `toolkiln discover` and `toolkiln build` first"
    )


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"tags": ["caf\xe9"]}')
    assert load_error(path) == f"{path}: not UTF-8 text"


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("", 1, 1),
        ('{\n  "enabled": true,\n}\n', 3, 1),
        ('{\n  "enabled": true\n  "tags": []\n}\n', 3, 3),
        ("{\n\n\n  'single': 1\n}", 4, 3),
    ],
)
def test_invalid_json_names_the_line(tmp_path: Path, text: str, line: int, column: int) -> None:
    # The wording of the reason is Python's own (and changes between versions).
    path = tmp_path / "bad.json"
    path.write_text(text)
    message = load_error(path)
    assert message.startswith(f"{path}:{line}: invalid JSON: ")
    assert message.endswith(f"(column {column})")


def test_wrong_type_names_line_and_field(written: Path) -> None:
    line = replace_in(written, '"enabled": true', '"enabled": "perhaps"')
    assert load_error(written) == (f"{written}:{line}: enabled: Input should be a valid boolean")


def test_nested_wrong_type(written: Path) -> None:
    line = replace_in(written, '"timeout_seconds": null', '"timeout_seconds": -1')
    assert (
        load_error(written)
        == f"{written}:{line}: script_config.timeout_seconds: Input should be greater than 0"
    )


def test_unknown_key(written: Path) -> None:
    line = replace_in(
        written, '"follow_symlinks": true', '"follow_symlinks": true,\n      "folow_links": false'
    )
    assert load_error(written) == (
        f"{written}:{line + 1}: script_config.workspace_config.folow_links: unknown key (check its spelling)"
    )


def test_missing_key_points_at_its_parent(written: Path) -> None:
    text = written.read_text()
    written.write_text(text.replace('    "script_path": "t.sh",\n', ""))
    line = next(n for n, t in enumerate(text.splitlines(), start=1) if '"script_config"' in t)
    assert load_error(written) == f"{written}:{line}: script_config.script_path: required key is missing"


def test_an_error_inside_a_parameter(written: Path) -> None:
    line = replace_in(written, '"type": "string"', '"type": "string",\n        "default": 5')
    assert load_error(written) == (
        f"{written}:{line - 4}: script_config.parameters.0: parameter 'a': default 5: is not of type string"
    )


def test_every_problem_is_listed(written: Path) -> None:
    enabled = replace_in(written, '"enabled": true', '"enabled": 3')
    tags = replace_in(written, '"tags": []', '"tags": "x"')
    lines = load_error(written).splitlines()
    assert [line.split(": ")[0:2] for line in lines] == [
        [f"{written}:{enabled}", "enabled"],
        [f"{written}:{tags}", "tags"],
    ]


def test_a_value_error_has_no_pydantic_prefix(written: Path) -> None:
    replace_in(written, '"name": "t"', '"name": "a b"')
    assert "Value error" not in load_error(written)
    assert "tool name 'a b' must be 1 to 64 characters" in load_error(written)


def test_top_level_not_an_object(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text("[]\n")
    assert load_error(path).startswith(f"{path}: (top level): ")


# --- locate_key -------------------------------------------------------------------------------

DOC = """{
  "a": {
    "b": "text with \\"b\\": inside",
    "list": [
      {"name": "one"},
      {"name": "two"},
      {
        "name": "three"
      }
    ],
    "b2": 1
  },
  "name": "top"
}"""


@pytest.mark.parametrize(
    ("loc", "line"),
    [
        (("a",), 2),
        (("a", "b"), 3),
        (("a", "list"), 4),
        (("a", "list", 0), 5),
        (("a", "list", 1, "name"), 6),
        (("a", "list", 2, "name"), 8),
        (("a", "b2"), 11),
        (("name",), 13),
        (("a", "list", 9), 4),
        (("a", "missing"), 2),
        (("a", "list", 0, "name", "str"), 5),
        (("missing",), None),
        ((), None),
    ],
)
def test_locate_key_follows_keys_and_indexes(loc: tuple[int | str, ...], line: int | None) -> None:
    assert locate_key(DOC, loc) == line


@pytest.mark.parametrize("text", ["", "not json", '{"a" 1}', "[1, 2]", '{"b": 1, "a"'])
def test_locate_key_on_broken_text(text: str) -> None:
    assert locate_key(text, ("a", "b")) is None


def test_locate_key_in_a_truncated_file_gives_the_deepest_key_found() -> None:
    assert locate_key('{\n"a": {\n  "b": ', ("a", "b", "c")) == 3


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"enabled": true', '"enabled": "no"'),
        ('"enabled": true', '"enabled": 1'),
        ('"tags": []', '"tags": "a,b"'),
    ],
)
def test_values_of_the_wrong_json_type_are_not_quietly_converted(written: Path, old: str, new: str) -> None:
    line = replace_in(written, old, new)
    assert load_error(written).startswith(f"{written}:{line}: ")
