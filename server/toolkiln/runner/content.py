"""Rich results: a tool's output that is itself an MCP result, with images, audio and more.

A script whose stdout is a JSON object with a `content` array (and nothing else but
`structuredContent`, `isError` and `_meta`) returns those content items as they are:
text, image, audio, embedded resources, resource links, several at once. So does a
Python tool that returns such a dict. An image, an audio clip or an embedded
resource may name a file (`"path"`, relative to the tool's folder) instead of
carrying its base64 `data` or `blob`; the file is read here, its MIME type guessed
from its name unless the item gives one. `serve` checks each item against the
protocol's types, so this module only shapes and never imports the SDK.
"""

from __future__ import annotations

import base64
import json
import mimetypes
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkiln.runner.result import ToolResult

RESULT_KEYS = frozenset({"content", "structuredContent", "isError", "_meta"})
CONTENT_TYPES = frozenset({"text", "image", "audio", "resource", "resource_link"})
# The SDK refuses a streamed message over 1 MiB; base64 makes a file a third bigger.
MAX_FILE_BYTES = 700 * 1024


class ContentError(Exception):
    """A content item that names a file toolkiln cannot send; the message says which."""


def json_object(text: str) -> dict[str, Any] | None:
    """`text` as a JSON object (a tool's stdout, a rendered prompt), or None if it is not one."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def rich_result(value: Any, tool: str, tool_dir: Path, **fields: Any) -> ToolResult | None:
    """`value` as a rich result (with the result's other `fields`), or None when it is
    ordinary output. An item naming a file that is missing or too big is a tool error."""
    try:
        rich = _rich_output(value, tool_dir)
    except ContentError as error:
        text = f"Tool {tool!r} returned a result toolkiln cannot send: {error}."
        return ToolResult(text=text, is_error=True, **fields)
    if rich is None:
        return None
    return ToolResult(
        text=summary(rich.content),
        is_error=rich.is_error,
        structured=rich.structured,
        meta=rich.meta,
        content=rich.content,
        **fields,
    )


@dataclass(frozen=True)
class _RichOutput:
    content: list[dict[str, Any]]
    structured: dict[str, Any] | None
    is_error: bool
    meta: dict[str, Any] | None


def _rich_output(value: Any, base_dir: Path) -> _RichOutput | None:
    if not (isinstance(value, dict) and "content" in value and value.keys() <= RESULT_KEYS):
        return None
    items = value["content"]
    if not (
        isinstance(items, list)
        and items
        and all(isinstance(item, dict) and item.get("type") in CONTENT_TYPES for item in items)
    ):
        return None
    structured, meta = value.get("structuredContent"), value.get("_meta")
    return _RichOutput(
        content=[with_files_read(item, base_dir, index) for index, item in enumerate(items, 1)],
        structured=structured if isinstance(structured, dict) else None,
        is_error=value.get("isError") is True,
        meta=meta if isinstance(meta, dict) else None,
    )


def summary(content: list[dict[str, Any]]) -> str:
    """The result as plain text, for `toolkiln call`, logs and the audit: text items in
    full, the others as one line each."""
    lines = []
    for item in content:
        kind = item.get("type")
        if kind == "text":
            lines.append(str(item.get("text", "")))
        elif kind == "resource_link":
            lines.append(f"[resource link {item.get('uri')}]")
        elif kind == "resource":
            resource = item.get("resource") or {}
            lines.append(f"[resource {resource.get('uri')} ({resource.get('mimeType') or 'no type'})]")
        else:
            size = len(str(item.get("data", ""))) * 3 // 4
            lines.append(f"[{kind} {item.get('mimeType')}, {size} bytes]")
    return "\n".join(lines)


def with_files_read(item: dict[str, Any], base_dir: Path, index: int) -> dict[str, Any]:
    """The content item with the file its `path` names read in; raises `ContentError`."""
    if item["type"] in ("image", "audio") and "path" in item:
        item = dict(item)
        path = item.pop("path")
        data, mime_type = _read(path, base_dir, index)
        return {"mimeType": mime_type, **item, "data": data}
    resource = item.get("resource")
    if item["type"] == "resource" and isinstance(resource, dict) and "path" in resource:
        resource = dict(resource)
        path = resource.pop("path")
        blob, mime_type = _read(path, base_dir, index)
        return {**item, "resource": {"mimeType": mime_type, **resource, "blob": blob}}
    return item


def _read(path: Any, base_dir: Path, index: int) -> tuple[str, str]:
    if not isinstance(path, str) or not path:
        raise ContentError(f"content item {index}: `path` must be a file name")
    file = base_dir / path
    try:
        size = file.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ContentError(
                f"content item {index}: {path} is {size} bytes; files sent in a result must be "
                f"at most {MAX_FILE_BYTES} bytes (serve bigger ones as a resource and return a resource_link)"
            )
        data = file.read_bytes()
    except OSError as error:
        raise ContentError(f"content item {index}: cannot read {path}: {error.strerror}") from None
    mime_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    return base64.b64encode(data).decode("ascii"), mime_type
