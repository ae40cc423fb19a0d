"""Tool names derived from script paths: safe for every MCP client, and unique."""

from __future__ import annotations

import hashlib

import pytest

from toolkiln.conventions.naming import MAX_NAME_LENGTH, tool_name_for
from toolkiln.model import TOOL_NAME_PATTERN


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("hello", "hello"),
        ("hello.sh", "hello"),
        ("greet.py", "greet"),
        ("tar.gz.sh", "tar_gz"),
        ("utils/calc", "utils__calc"),
        ("utils/calc.sh", "utils__calc"),
        ("api/v1/fetch", "api__v1__fetch"),
        ("a/b/c/d/e/tool.sh", "a__b__c__d__e__tool"),
        ("pwod/run.sh", "pwod"),
        ("utils/pwod/run.sh", "utils__pwod"),
        ("run.sh", "run"),
        ("my tool/run.sh", "my_tool"),
        ("a b/c.d.sh", "a_b__c_d"),
        ("my.tool.v2.sh", "my_tool_v2"),
        ("héllo.sh", "h_llo"),
        ("what?!.sh", "what_"),
        ("a..b/c", "a_b__c"),
        ("kebab-case.sh", "kebab-case"),
        ("snake_case.sh", "snake_case"),
        ("MixedCase.sh", "MixedCase"),
        ("a/run.sh/x", "a__run_sh__x"),
    ],
)
def test_names_from_paths(path: str, name: str) -> None:
    assert tool_name_for(path) == name
    assert TOOL_NAME_PATTERN.match(name)


def test_only_a_run_sh_names_its_folder() -> None:
    assert tool_name_for("pwod/run.py") == "pwod__run"
    assert tool_name_for("pwod/RUN.sh") == "pwod__RUN"


def test_a_name_of_exactly_the_limit_is_kept() -> None:
    path = "x" * MAX_NAME_LENGTH + ".sh"
    assert tool_name_for(path) == "x" * MAX_NAME_LENGTH


def test_long_names_are_cut_to_64_with_a_hash() -> None:
    path = "x" * 70 + ".sh"
    name = tool_name_for(path)
    assert len(name) == MAX_NAME_LENGTH
    assert TOOL_NAME_PATTERN.match(name)
    prefix, digest = name.rsplit("_", 1)
    assert prefix == "x" * (MAX_NAME_LENGTH - 9)
    assert len(digest) == 8
    assert all(c in "0123456789abcdef" for c in digest)


def test_long_names_stay_unique() -> None:
    shared = "very_long_folder_name_" * 4
    paths = [f"{shared}/tool_{i}.sh" for i in range(50)] + [
        f"{shared}/tool_{i}/run.sh" for i in range(50, 60)
    ]
    names = [tool_name_for(path) for path in paths]
    assert all(len(name) == MAX_NAME_LENGTH and TOOL_NAME_PATTERN.match(name) for name in names)
    assert len(set(names)) == len(paths)


def test_long_names_are_the_same_on_every_run() -> None:
    # The hash is of the path (not Python's salted hash()), so configs keep their names.
    path = "deep/" * 11 + "tool.sh"
    digest = hashlib.sha256(path.encode()).hexdigest()[:8]
    assert tool_name_for(path) == ("deep__" * 11)[: MAX_NAME_LENGTH - 9] + "_" + digest


def test_long_folder_with_run_sh() -> None:
    name = tool_name_for("a/" + "y" * 70 + "/run.sh")
    assert len(name) == MAX_NAME_LENGTH
    assert name.startswith("a__yyyy")


def test_different_paths_can_meet_in_one_name() -> None:
    # Discovery reports such collisions (tests/discover/test_core.py); naming alone cannot avoid them.
    assert tool_name_for("utils/calc.sh") == tool_name_for("utils/calc.py") == tool_name_for("utils__calc")
