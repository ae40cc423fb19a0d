"""Reading, editing and writing a client's config file in its own syntax: JSON or TOML.

Each syntax reads a file into a document that can be edited in place and written back
with everything else in it kept: other servers, other keys and their order, the user's
comments and layout: JSON with comments and trailing commas (JSONC, as VS Code, Cursor,
Gemini CLI and Claude Code read their files) by `jsonc_edit`, TOML (Codex) by tomlkit.
A file that does not parse is a `ConfigError` naming the file, line and column; nothing
is written over it.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from toolkiln.clients.jsonc import JsoncError
from toolkiln.clients.jsonc_edit import read_jsonc, render_jsonc
from toolkiln.errors import ConfigError

SyntaxName = Literal["json", "toml"]
Document = MutableMapping[str, Any]


@dataclass(frozen=True)
class Syntax:
    name: SyntaxName
    parse: Callable[[Path, str], Document]  # (path for messages, the file's text)
    render: Callable[[Document], str]
    new_table: Callable[[], Document]  # an empty servers table
    to_item: Callable[[dict[str, Any]], Any]  # an entry as this syntax stores it

    def read(self, path: Path) -> Document | None:
        """The file's document; None when there is no file (an empty file is an empty one)."""
        try:
            content = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as error:
            raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
        try:  # no newline translation: a file with CRLF line ends keeps them
            text = content.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ConfigError(
                f"{path}: not UTF-8 (byte {error.start}), so it was left alone: save it as UTF-8 first"
            ) from None
        return self.parse(path, text)

    def servers(self, document: Document, key: str, path: Path) -> Document:
        """The table of servers under `key`, made when there is none."""
        if key not in document:
            document[key] = self.new_table()
        servers = document[key]
        if not isinstance(servers, MutableMapping):
            kind = "a table" if self.name == "toml" else "a JSON object"
            raise ConfigError(f"{path}: {key!r} is not {kind}; fix it by hand first")
        return servers

    def snippet(self, key: str, name: str, entry: dict[str, Any]) -> str:
        """The whole file's shape with just this server in it, as text to paste."""
        document = self.parse(Path("snippet"), "")
        self.servers(document, key, Path("snippet"))[name] = self.to_item(entry)
        return self.render(document)


def plain(value: Any) -> Any:
    """A value read from a document as plain dicts, lists and scalars (to compare)."""
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if callable(unwrap) else value


def _parse_json(path: Path, text: str) -> Document:
    try:
        return read_jsonc(text)
    except JsoncError as error:
        line, column = error.locate(text.removeprefix("\ufeff"))
        raise ConfigError(
            f"{path}:{line}:{column}: not valid JSON ({error.message}), so it was left alone: "
            "fix it, or add the snippet that `toolkiln config` prints by hand"
        ) from None


def _parse_toml(path: Path, text: str) -> Document:
    import tomlkit
    from tomlkit.exceptions import ParseError

    try:
        return tomlkit.parse(text)
    except ParseError as error:
        reason = str(error).split(" at line ")[0]
        raise ConfigError(
            f"{path}:{error.line}: not valid TOML ({reason}), so it was left alone: fix it, "
            "or add the snippet that `toolkiln config` prints by hand"
        ) from None


def _render_toml(document: Document) -> str:
    import tomlkit

    return tomlkit.dumps(document).rstrip("\n") + "\n"


def _toml_table() -> Document:
    import tomlkit

    # A super table: `[mcp_servers.NAME]` headers, never an empty `[mcp_servers]` above them.
    return tomlkit.table(is_super_table=True)


def _toml_item(entry: dict[str, Any]) -> Any:
    """A `[mcp_servers.NAME]` table whose maps (env, http_headers) are inline tables."""
    import tomlkit

    table = tomlkit.table()
    for key, value in entry.items():
        if isinstance(value, dict):
            inline = tomlkit.inline_table()
            inline.update(value)
            value = inline
        table.add(key, value)
    table.add(tomlkit.nl())  # a blank line before whatever table follows
    return table


SYNTAXES: dict[SyntaxName, Syntax] = {
    "json": Syntax("json", _parse_json, render_jsonc, dict, dict),
    "toml": Syntax("toml", _parse_toml, _render_toml, _toml_table, _toml_item),
}
