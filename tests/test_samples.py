"""The sample tools under tools/, discovered, built and called for real.

Discovery and builds go to temporary config folders: the committed config/ is only
read, to check that it is up to date with the scripts.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import os
import shutil
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.files import catalog_path, load_tool_config, tool_config_path
from toolkiln.runner import LogLine, ProgressLine, Registry, RunSettings, ToolResult, ToolRunner, server_env

REPO = Path(__file__).resolve().parent.parent
SAMPLE_TOOLS = REPO / "tools"
COMMITTED_CONFIGS = REPO / "config" / "tools"

SAMPLE_DIALECTS = {
    "add-numbers": "help-json",
    "calculator": "help-json",
    "counter": "help-json",
    "create-note": "kit",
    "echo": "help-json",
    "fibonacci": "python",
    "files__file-reader": "help-json",
    "greet": "help-json",
    "hello-world": "help-json",
    "legacy_grep": "python",
    "notes": "annotations",
    "pwod": "annotations",
    "reset-counter": "help-json",
    "slugify": "kit",
    "text-stats": "annotations",
    "unit_convert": "python",
    "utils__system-info": "help-json",
    "validate-input": "help-json",
    "word-count": "kit",
    "word_stats": "python",
}


@dataclass
class Recorder:
    """A call observer that keeps the structured stderr lines of a call."""

    logs: list[LogLine] = field(default_factory=list)
    progress: list[ProgressLine] = field(default_factory=list)

    def on_log(self, tool: str, line: LogLine) -> None:
        self.logs.append(line)

    def on_progress(self, tool: str, line: ProgressLine) -> None:
        self.progress.append(line)

    def messages(self, level: str) -> list[str]:
        return [line.message for line in self.logs if line.level == level]


def build(tools_dir: Path, config_dir: Path) -> Registry:
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, [str(error) for error in report.errors]
    build_catalog(config_dir, tools_dir)
    return Registry.load(catalog_path(config_dir))


def call(
    registry: Registry,
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    observer: Recorder | None = None,
    settings: RunSettings | None = None,
) -> ToolResult:
    runner = ToolRunner(registry, settings or RunSettings())

    async def call_once() -> ToolResult:
        try:
            return await runner.call(name, arguments or {}, observer)
        finally:
            await runner.close()  # a Python tool's warm worker

    return anyio.run(call_once)


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Registry:
    """The real tools/ folder, discovered and built into a temporary config folder."""
    return build(SAMPLE_TOOLS, tmp_path_factory.mktemp("config"))


# discovery ------------------------------------------------------------------------


def test_every_sample_is_discovered_in_its_dialect(samples: Registry) -> None:
    assert {name: tool.dialect for name, tool in samples.tools.items()} == SAMPLE_DIALECTS
    assert all(tool.description for tool in samples.tools.values())
    assert samples.get("files__file-reader").script_path == "files/file-reader.sh"
    assert samples.get("utils__system-info").script_path == "utils/system-info.py"
    assert samples.get("pwod").script_path == "pwod/run.sh"


def test_metadata_title_and_version_are_read(samples: Registry) -> None:
    hello = samples.get("hello-world")
    assert (hello.title, hello.version, hello.parameters) == ("Hello, world", "1.0.0", [])
    assert (samples.get("calculator").title, samples.get("calculator").version) == ("Calculator", "1.2.0")
    assert (samples.get("pwod").title, samples.get("pwod").version) == ("Password of the day", "1.0.0")
    assert samples.get("greet").title is None


def test_help_json_newer_spellings_and_implicit_defaults(samples: Registry) -> None:
    # calculator declares `type` and `default` instead of `value_type` and `default_value`.
    properties = samples.get("calculator").input_schema["properties"]
    assert properties["operation"]["enum"] == ["add", "subtract", "multiply", "divide"]
    assert properties["a"]["type"] == "number"
    assert properties["precision"] == {
        "type": "integer",
        "description": "Digits after the decimal point in the result",
        "minimum": 0,
        "maximum": 15,
        "default": 10,
    }
    schema = samples.get("validate-input").input_schema
    assert schema["required"] == ["username", "age"]
    assert schema["properties"]["username"]["minLength"] == 3
    assert schema["properties"]["age"]["maximum"] == 130
    # An optional boolean without a default defaults to false; optional `any` has none.
    assert schema["properties"]["newsletter"]["default"] is False
    assert "default" not in schema["properties"]["profile"]
    assert "type" not in schema["properties"]["profile"]


def test_text_stats_declares_every_annotation_type(samples: Registry) -> None:
    properties = samples.get("text-stats").input_schema["properties"]
    assert {name: prop["type"] for name, prop in properties.items()} == {
        "text": "string",
        "top": "integer",
        "words_per_minute": "number",
        "case_sensitive": "boolean",
        "stopwords": "array",
        "aliases": "object",
        "order": "string",
    }
    assert (properties["text"]["minLength"], properties["text"]["maxLength"]) == (1, 100000)
    assert (properties["top"]["minimum"], properties["top"]["maximum"], properties["top"]["default"]) == (
        0,
        50,
        5,
    )
    assert properties["stopwords"] == {
        "type": "array",
        "description": "Words left out of the frequency list",
        "items": {"type": "string"},
        "maxItems": 500,
        "default": [],
    }
    assert properties["aliases"]["default"] == {}
    assert properties["order"]["enum"] == ["count", "alphabetical"]


def test_a_run_sh_folder_records_its_requirements_file(tmp_path: Path) -> None:
    discover_tools(SAMPLE_TOOLS, tmp_path)
    config = load_tool_config(tool_config_path(tmp_path, "text-stats"))
    assert config.script_config.requirements_file == "text-stats/requirements.txt"
    assert load_tool_config(tool_config_path(tmp_path, "pwod")).script_config.requirements_file is None


def test_committed_configs_are_up_to_date(tmp_path: Path) -> None:
    committed = {path.name: path.read_bytes() for path in COMMITTED_CONFIGS.glob("*.json")}
    shutil.copytree(COMMITTED_CONFIGS, tmp_path / "tools")
    report = discover_tools(SAMPLE_TOOLS, tmp_path)
    assert not report.errors and not report.warnings
    stale = {tool.name: tool.change for tool in report.tools if tool.change != "unchanged"}
    assert not stale, f"config/tools/ is out of date: run `toolkiln discover` ({stale})"
    assert (
        {f"{tool.name}.json" for tool in report.tools}
        == set(committed)
        == {f"{name}.json" for name in SAMPLE_DIALECTS}
    )
    assert {path.name: path.read_bytes() for path in (tmp_path / "tools").glob("*.json")} == committed


# help-json tools ------------------------------------------------------------------


def test_notes_stays_in_its_workspace(samples: Registry) -> None:
    assert call(samples, "notes", {"function": "read", "file": "welcome.md"}).text.startswith("# Welcome")
    assert "welcome.md" in call(samples, "notes", {"function": "list"}).text.split()
    for escape in ("../run.sh", "/etc/passwd", "../../notes/run.sh"):
        refused = call(samples, "notes", {"function": "read", "file": escape})
        assert refused.is_error
        assert refused.text.startswith("Refused by the workspace of tool 'notes'")


def test_counter_keeps_its_state_between_calls(samples: Registry, tmp_path: Path) -> None:
    settings = RunSettings(env={"COUNTER_FILE": str(tmp_path / "count")})
    runner = ToolRunner(samples, settings)
    assert anyio.run(runner.read_state, "counter").structured == {"count": 0}
    assert call(samples, "counter", {"by": 4}, settings=settings).structured == {"count": 4}
    assert call(samples, "counter", {}, settings=settings).structured == {"count": 5}
    assert anyio.run(runner.read_state, "counter").structured == {"count": 5}
    assert call(samples, "reset-counter", settings=settings).structured == {"count": 0}
    # Its committed config asks for confirmation and marks it destructive and idempotent.
    reset = load_tool_config(COMMITTED_CONFIGS / "reset-counter.json").script_config
    assert reset.requires_confirmation
    assert (reset.destructive, reset.idempotent, reset.read_only) == (True, True, False)


def test_hello_world(samples: Registry) -> None:
    result = call(samples, "hello-world")
    assert (result.text, result.is_error, result.exit_code, result.structured) == (
        "Hello, world!",
        False,
        0,
        None,
    )


def test_greet_uses_its_default_and_requires_a_name(samples: Registry) -> None:
    assert call(samples, "greet", {"name": "Ada"}).text == "Hello, Ada!"
    assert call(samples, "greet", {"name": "Ada", "greeting": "Ahoy"}).text == "Ahoy, Ada!"
    missing = call(samples, "greet", {})
    assert missing.is_error and missing.exit_code is None
    assert missing.text == "Invalid arguments for tool 'greet':\n- 'name' is required"
    empty = call(samples, "greet", {"name": ""})
    assert empty.is_error and 'name: "" must be at least 1 character long' in empty.text


@pytest.mark.parametrize(
    "message",
    [
        "hello",
        "",
        '  spaces,  "quotes", $HOME and `backticks`  ',
        "two\nlines",
        "ends with a newline\n",
        "héllo ✓",
    ],
)
def test_echo_prints_the_message_back_exactly(samples: Registry, message: str) -> None:
    result = call(samples, "echo", {"message": message})
    assert (result.text, result.is_error, result.exit_code) == (message, False, 0)


def test_add_numbers(samples: Registry) -> None:
    assert call(samples, "add-numbers", {"a": 2, "b": 40}).text == "42"
    assert call(samples, "add-numbers", {"a": -7, "b": 3}).text == "-4"
    assert call(samples, "add-numbers", {"a": 10**15, "b": 10**15}).text == str(2 * 10**15)
    too_big = call(samples, "add-numbers", {"a": 10**15 + 1, "b": 0})
    assert too_big.is_error and "a: 1000000000000001 must be at most 1000000000000000" in too_big.text
    wrong_type = call(samples, "add-numbers", {"a": "two", "b": 1})
    assert wrong_type.is_error and 'a: "two" must be of type integer' in wrong_type.text


def test_add_numbers_checks_its_input_when_run_by_hand() -> None:
    env = {**os.environ, "a": "010", "b": "1"}
    run = subprocess.run(
        [SAMPLE_TOOLS / "add-numbers.sh"], env=env, capture_output=True, text=True, check=False
    )
    assert run.returncode == 2
    assert run.stderr.startswith("ERROR a must be a whole number")


@pytest.mark.parametrize(
    ("operation", "a", "b", "expected"),
    [
        ("add", 0.1, 0.2, "0.3"),
        ("subtract", 2, 10, "-8"),
        ("multiply", 2.5, 4, "10"),
        ("divide", 1, 3, "0.3333333333"),
    ],
)
def test_calculator(samples: Registry, operation: str, a: float, b: float, expected: str) -> None:
    result = call(samples, "calculator", {"operation": operation, "a": a, "b": b})
    assert (result.text, result.is_error) == (expected, False)


def test_calculator_precision(samples: Registry) -> None:
    result = call(samples, "calculator", {"operation": "divide", "a": 2, "b": 3, "precision": 2})
    assert result.text == "0.67"


def test_calculator_divide_by_zero_is_a_bad_request(samples: Registry) -> None:
    recorder = Recorder()
    result = call(samples, "calculator", {"operation": "divide", "a": 1, "b": 0}, observer=recorder)
    assert (result.is_error, result.exit_code) == (True, 2)
    assert result.text.startswith("Tool 'calculator' failed with exit code 2 (bad request).")
    assert "ERROR division by zero: b must not be 0" in result.text
    assert recorder.messages("error") == ["division by zero: b must not be 0"]


def test_calculator_rejects_an_operation_outside_its_enum(samples: Registry) -> None:
    result = call(samples, "calculator", {"operation": "modulo", "a": 1, "b": 2})
    assert result.is_error and result.exit_code is None
    assert 'operation: "modulo" must be one of ["add", "subtract", "multiply", "divide"]' in result.text


def test_validate_input_accepts_a_form_and_fills_defaults(samples: Registry) -> None:
    result = call(samples, "validate-input", {"username": "ada_l", "age": 36})
    assert result.structured == {
        "valid": True,
        "username": "ada_l",
        "age": 36,
        "role": "viewer",
        "newsletter": False,
        "profile": None,
    }
    full = call(
        samples,
        "validate-input",
        {
            "username": "grace-h",
            "age": 85,
            "role": "admin",
            "newsletter": True,
            "profile": {"langs": ["COBOL"]},
        },
    )
    assert full.structured is not None
    assert (full.structured["role"], full.structured["newsletter"]) == ("admin", True)
    assert full.structured["profile"] == {"langs": ["COBOL"]}


def test_validate_input_lists_every_violation_before_running(samples: Registry) -> None:
    result = call(samples, "validate-input", {"username": "al", "age": 7, "role": "root", "extra": 1})
    assert result.is_error and result.exit_code is None
    assert result.text.splitlines() == [
        "Invalid arguments for tool 'validate-input':",
        "- unknown argument 'extra' (this tool accepts: age, newsletter, profile, role, username)",
        "- age: 7 must be at least 13",
        '- role: "root" must be one of ["viewer", "editor", "admin"]',
        '- username: "al" must be at least 3 characters long',
    ]
    too_long = call(samples, "validate-input", {"username": "x" * 17, "age": 131})
    assert (
        "must be at most 16 characters long" in too_long.text and "131 must be at most 130" in too_long.text
    )


def test_validate_input_own_check_is_exit_2(samples: Registry) -> None:
    result = call(samples, "validate-input", {"username": "ada.l", "age": 36})
    assert (result.is_error, result.exit_code) == (True, 2)
    assert "ERROR username may contain only letters, digits, '_' and '-'" in result.text


def test_system_info_reports_the_host_with_logs_and_progress(
    samples: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOOLKILN_TRANSPORT", raising=False)
    recorder = Recorder()
    result = call(samples, "utils__system-info", observer=recorder)
    assert not result.is_error and result.structured is not None
    info = result.structured
    assert info["hostname"] == socket.gethostname()
    assert info["kernel"] == os.uname().release
    assert isinstance(info["uptime_seconds"], int) and info["uptime_seconds"] >= 0
    assert "cpu_count" not in info
    assert info["server"]["tool_name"] == "utils__system-info"
    assert info["server"]["tool_dir"] == str(SAMPLE_TOOLS / "utils")
    assert info["server"]["transport"] is None
    assert recorder.messages("info") == ["collecting system information", "done: 7 fields"]
    debug = recorder.messages("debug")  # TRACE lines arrive as debug
    assert any(message.startswith("uname: ") for message in debug)
    assert any(message.startswith("read /proc/uptime: ") for message in debug)
    assert recorder.messages("warning") == [
        "not started by a toolkiln server or `toolkiln call`: the server variables are unset"
    ]
    assert [(p.progress, p.total, p.message) for p in recorder.progress] == [(1, 2, "host"), (2, 2, "uptime")]


def test_system_info_sees_the_server_variables(samples: Registry) -> None:
    env = server_env(
        tools_dir=samples.tools_dir, catalog_file=samples.catalog_file, transport="stdio", log_level="info"
    )
    recorder = Recorder()
    result = call(
        samples, "utils__system-info", {"details": True}, observer=recorder, settings=RunSettings(env=env)
    )
    assert result.structured is not None
    assert result.structured["server"] == {
        "tool_name": "utils__system-info",
        "tool_dir": str(SAMPLE_TOOLS / "utils"),
        "transport": "stdio",
        "tools_dir": str(SAMPLE_TOOLS),
        "log_level": "INFO",
    }
    assert result.structured["cpu_count"] == os.cpu_count()
    assert recorder.messages("warning") == []
    assert [p.total for p in recorder.progress] == [3, 3, 3]


def test_file_reader_reads_files_under_data(samples: Registry) -> None:
    data = SAMPLE_TOOLS / "files" / "data"
    welcome = call(samples, "files__file-reader", {"path": "welcome.txt"})
    assert (welcome.is_error, welcome.text) == (False, (data / "welcome.txt").read_text().removesuffix("\n"))
    nested = call(samples, "files__file-reader", {"path": "notes/glazes.md"})
    assert nested.text == (data / "notes" / "glazes.md").read_text().removesuffix("\n")


def test_file_reader_cuts_at_max_bytes_with_a_warning(samples: Registry) -> None:
    recorder = Recorder()
    result = call(samples, "files__file-reader", {"path": "welcome.txt", "max_bytes": 7}, observer=recorder)
    assert result.text == "Welcome"
    size = (SAMPLE_TOOLS / "files" / "data" / "welcome.txt").stat().st_size
    assert recorder.messages("warning") == [f"welcome.txt has {size} bytes; showing the first 7"]


@pytest.mark.parametrize(
    ("path", "code", "meaning", "message"),
    [
        ("/etc/passwd", 2, "bad request", "path must be relative to the data folder, not absolute"),
        ("../file-reader.sh", 2, "bad request", "path must not contain '..'"),
        ("notes/../welcome.txt", 2, "bad request", "path must not contain '..'"),
        ("notes", 2, "bad request", "notes is a folder"),
        ("secret-token.txt", 3, "forbidden", "files named secret* are private"),
        ("notes/secret.txt", 3, "forbidden", "files named secret* are private"),
        ("missing.txt", 4, "not found", "no such file: missing.txt"),
    ],
)
def test_file_reader_error_codes(samples: Registry, path: str, code: int, meaning: str, message: str) -> None:
    result = call(samples, "files__file-reader", {"path": path})
    assert (result.is_error, result.exit_code) == (True, code)
    assert result.text.startswith(f"Tool 'files__file-reader' failed with exit code {code} ({meaning}).")
    assert message in result.text


def test_file_reader_refuses_links_out_of_data_and_to_secrets(tools_dir: Path, config_dir: Path) -> None:
    shutil.copytree(SAMPLE_TOOLS / "files", tools_dir / "files")
    outside = tools_dir.parent / "outside.txt"
    outside.write_text("not for the tool\n")
    data = tools_dir / "files" / "data"
    (data / "outside.txt").symlink_to(outside)
    (data / "notes" / "token.txt").symlink_to(data / "secret-token.txt")
    (data / "notes" / "welcome-link.txt").symlink_to(data / "welcome.txt")
    registry = build(tools_dir, config_dir)
    escaped = call(registry, "files__file-reader", {"path": "outside.txt"})
    assert escaped.exit_code == 3 and "outside.txt leads outside the data folder" in escaped.text
    secret = call(registry, "files__file-reader", {"path": "notes/token.txt"})
    assert secret.exit_code == 3 and "leads to a private secret* file" in secret.text
    inside = call(registry, "files__file-reader", {"path": "notes/welcome-link.txt"})
    assert inside.exit_code == 0 and inside.text.startswith("Welcome to the toolkiln sample data.")


# annotated tools ------------------------------------------------------------------


def pwod_password(date: str, custom: str, length: int) -> str:
    """pwod's algorithm, independently: two SHA-256 blocks as URL-safe base64, cut."""
    digest = b"".join(hashlib.sha256(f"pwod:{date}:{custom}:{n}".encode()).digest() for n in (0, 1))
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")[:length]


def test_pwod_generates_deterministic_passwords(samples: Registry) -> None:
    arguments = {"function": "generate", "date_string": "2025-01-01", "custom_string": "kiln"}
    first, second = call(samples, "pwod", arguments), call(samples, "pwod", arguments)
    assert (
        first.structured
        == second.structured
        == {
            "function": "generate",
            "date": "2025-01-01",
            "length": 16,
            "password": pwod_password("2025-01-01", "kiln", 16),
        }
    )
    long = call(samples, "pwod", {**arguments, "length": 64})
    assert long.structured is not None and long.structured["password"] == pwod_password(
        "2025-01-01", "kiln", 64
    )
    other_day = call(samples, "pwod", {**arguments, "date_string": "2025-01-02"})
    assert other_day.structured is not None
    assert (
        other_day.structured["password"]
        == pwod_password("2025-01-02", "kiln", 16)
        != pwod_password("2025-01-01", "kiln", 16)
    )


def test_pwod_defaults_to_today_and_no_custom_string(samples: Registry) -> None:
    result = call(samples, "pwod", {"function": "generate"})
    today = datetime.date.today().isoformat()
    assert result.structured == {
        "function": "generate",
        "date": today,
        "length": 16,
        "password": pwod_password(today, "", 16),
    }


def test_pwod_verify(samples: Registry) -> None:
    password = pwod_password("2024-02-29", "s3cret", 20)
    good = call(
        samples,
        "pwod",
        {"function": "verify", "date_string": "2024-02-29", "custom_string": "s3cret", "password": password},
    )
    assert good.structured == {"function": "verify", "date": "2024-02-29", "valid": True}
    wrong_secret = call(
        samples, "pwod", {"function": "verify", "date_string": "2024-02-29", "password": password}
    )
    assert wrong_secret.structured == {"function": "verify", "date": "2024-02-29", "valid": False}


@pytest.mark.parametrize(
    ("arguments", "code", "message"),
    [
        ({"function": "verify"}, 2, "ERROR verify needs --password"),
        ({"function": "generate", "date_string": "2025-02-30"}, 2, "must be a real date written YYYY-MM-DD"),
        ({"function": "generate", "date_string": "01/02/2025"}, 2, "must be a real date written YYYY-MM-DD"),
        ({"function": "delete"}, None, 'function: "delete" must be one of ["generate", "verify"]'),
        ({"function": "generate", "length": 7}, None, "length: 7 must be at least 8"),
        ({"function": "generate", "date_string": "2025-1-1"}, None, "must be at least 10 characters long"),
        ({}, None, "'function' is required"),
    ],
)
def test_pwod_errors(samples: Registry, arguments: dict[str, Any], code: int | None, message: str) -> None:
    result = call(samples, "pwod", arguments)
    assert (result.is_error, result.exit_code) == (True, code)
    assert message in result.text


def test_text_stats_uses_every_argument(samples: Registry) -> None:
    text = "The kiln, the KILN and the glaze.\nColour and color: wood-fired, don't!"
    result = call(
        samples,
        "text-stats",
        {
            "text": text,
            "top": 3,
            "words_per_minute": 50,
            "stopwords": ["and"],
            "aliases": {"colour": "color"},
            "order": "alphabetical",
        },
    )
    assert result.structured == {
        "characters": len(text),
        "lines": 2,
        "words": 12,
        "unique_words": 8,
        "reading_minutes": 0.24,
        "top_words": [
            {"word": "color", "count": 2},
            {"word": "kiln", "count": 2},
            {"word": "the", "count": 3},
        ],
    }
    sensitive = call(samples, "text-stats", {"text": text, "case_sensitive": True, "top": 2})
    assert sensitive.structured is not None
    assert sensitive.structured["top_words"] == [{"word": "and", "count": 2}, {"word": "the", "count": 2}]


def test_text_stats_defaults(samples: Registry) -> None:
    result = call(samples, "text-stats", {"text": "one two two three three three"})
    assert result.structured is not None
    assert result.structured["reading_minutes"] == round(6 / 238, 2)
    assert [entry["word"] for entry in result.structured["top_words"]] == ["three", "two", "one"]


def test_text_stats_checks_every_type(samples: Registry) -> None:
    result = call(
        samples,
        "text-stats",
        {
            "text": "",
            "top": 51,
            "words_per_minute": "fast",
            "case_sensitive": "yes",
            "stopwords": [1],
            "aliases": ["colour"],
            "order": "random",
        },
    )
    assert result.is_error and result.exit_code is None
    assert result.text.splitlines()[1:] == [
        '- aliases: ["colour"] must be of type object',
        '- case_sensitive: "yes" must be of type boolean',
        '- order: "random" must be one of ["count", "alphabetical"]',
        "- stopwords.0: 1 must be of type string",
        '- text: "" must be at least 1 character long',
        "- top: 51 must be at most 50",
        '- words_per_minute: "fast" must be of type number',
    ]


# kit tools (called end to end in tests/test_kit_tools.py) --------------------------


def test_kit_samples_are_named_after_their_name_comment(samples: Registry) -> None:
    assert {
        name: (samples.get(name).script_path, samples.get(name).title, samples.get(name).script_type)
        for name in ("create-note", "word-count", "slugify")
    } == {
        "create-note": ("kit/create-note.sh", "Create Note", "shell"),
        "word-count": ("kit/word-count.py", "Word Count", "python"),
        "slugify": ("kit/slugify.js", "Slugify", "node"),
    }
    properties = samples.get("slugify").input_schema["properties"]
    assert {name: prop["type"] for name, prop in properties.items()} == {
        "text": "string",
        "separator": "string",
        "max_length": "integer",
        "keep": "array",
    }
    assert properties["separator"]["enum"] == ["-", "_", "."]
    assert (properties["max_length"]["minimum"], properties["max_length"]["maximum"]) == (1, 200)
    assert samples.get("word-count").input_schema["properties"]["ignore_case"]["default"] is True


def test_create_note(samples: Registry) -> None:
    result = call(samples, "create-note", {"title": "Glaze", "body": "Celadon", "format": "text"})
    assert (result.text, result.is_error) == ("Glaze\n=====\n\nCeladon", False)


# Python modules (the worker itself is tested in tests/runner/test_python_workers.py) --


def test_word_stats_returns_the_envelope_as_structured_content_and_meta(samples: Registry) -> None:
    recorder = Recorder()
    result = call(samples, "word_stats", {"text": "the cat and the hat\nthe end"}, observer=recorder)
    assert not result.is_error
    assert result.structured == {"words": 7, "lines": 2, "characters": 27, "top_words": ["the", "cat", "and"]}
    assert result.meta is not None and result.meta["items_processed"] == 7 and result.meta["cost_usd"] == 0.0
    assert LogLine("info", "counting 7 words") in recorder.logs


def test_unit_convert_reads_inputs_and_reports_errors(samples: Registry) -> None:
    assert call(samples, "unit_convert", {"value": 1, "from_unit": "mi", "to_unit": "km"}).structured == {
        "value": 1.609344,
        "unit": "km",
    }
    same = call(samples, "unit_convert", {"value": 1, "from_unit": "m", "to_unit": "m"})
    assert (same.is_error, same.text) == (True, "from_unit and to_unit are the same unit")


def test_fibonacci_takes_keywords_and_raises_on_bad_input(samples: Registry) -> None:
    assert call(samples, "fibonacci", {"n": 6}).structured == {"numbers": [0, 1, 1, 2, 3, 5]}
    assert call(samples, "fibonacci", {"n": 4, "output": "text"}).text == "0, 1, 1, 2"
    failed = call(samples, "fibonacci", {"n": -1})
    assert (failed.is_error, failed.text) == (
        True,
        "Tool 'fibonacci' raised: ValueError: n must not be negative (fibonacci.py, line 13, in execute)",
    )


def test_legacy_grep_runs_as_a_script_with_its_argparse_options(samples: Registry) -> None:
    result = call(
        samples, "legacy_grep", {"word": "Cat", "ignore_case": True, "text": "a cat\nno dog\n-CAT-"}
    )
    assert (result.text, result.is_error) == ("a cat\n-CAT-", False)
    assert call(samples, "legacy_grep", {"word": "Cat", "text": "a cat\nCat"}).text == "Cat"


# prompts and resources --------------------------------------------------------------


def test_committed_prompt_and_resource_configs_are_up_to_date(tmp_path: Path) -> None:
    for kind in ("prompts", "resources"):
        shutil.copytree(REPO / "config" / kind, tmp_path / kind)
    shutil.copytree(COMMITTED_CONFIGS, tmp_path / "tools")
    report = discover_tools(
        SAMPLE_TOOLS, tmp_path, prompts_dir=REPO / "prompts", resources_dir=REPO / "resources"
    )
    assert not report.errors
    assert {s.name: s.change for s in report.prompts} == {
        "code-review": "unchanged",
        "commit-message": "unchanged",
    }
    assert {s.name: s.change for s in report.resources} == dict.fromkeys(
        ("glossary_md", "kiln_png", "weather__city_json"), "unchanged"
    )


def test_sample_prompts_render(tmp_path: Path) -> None:
    import mcp.types as types

    from toolkiln.serve.catalog.prompts import PromptService

    for kind in ("tools", "prompts", "resources"):
        shutil.copytree(REPO / "config" / kind, tmp_path / kind)
    build_catalog(tmp_path, SAMPLE_TOOLS, REPO / "prompts", REPO / "resources")
    prompts = PromptService(ToolRunner(Registry.load(tmp_path / "tools.json"), RunSettings()))
    arguments = {"code": "echo hi", "language": "bash", "focus": "quoting"}
    review = anyio.run(prompts.get_prompt, "code-review", arguments)
    assert isinstance(review, types.GetPromptResult)
    text = review.messages[0].content.text  # type: ignore[union-attr]
    assert text.startswith("Please review this bash code.")
    assert "Pay most attention to: quoting." in text
    assert "```bash\necho hi\n```" in text
