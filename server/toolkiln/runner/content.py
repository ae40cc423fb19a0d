"""Rich results: a tool's output that is itself an MCP result, with images, audio and more.

A script whose stdout is a JSON object with a `content` array (and nothing else but
`structuredContent`, `isError` and `_meta`) returns those content items as they are:
text, image, audio, embedded resources, resource links, several at once. So does a
Python tool that returns such a dict. An image, an audio clip or an embedded
resource may name a file (`"path"`) instead of carrying its base64 `data` or `blob`;
the file is read here, in a worker thread and only inside the fence its author
declared (runner/named_files.py: for a tool, its workspace), its MIME type guessed
from its name unless the item gives one. `serve` checks each item against the
protocol's types, so this module only shapes and never imports the SDK.
"""

from __future__ import annotations

import base64
import json
import mimetypes
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import anyio.to_thread

from toolkiln.runner.named_files import MAX_FILE_BYTES, FileFence, FileRefused, read_named_file
from toolkiln.runner.result import ToolResult

RESULT_KEYS = frozenset({"content", "structuredContent", "isError", "_meta"})
CONTENT_TYPES = frozenset({"text", "image", "audio", "resource", "resource_link"})


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


async def rich_result(value: Any, tool: str, files: FileFence, **fields: Any) -> ToolResult | None:
    """`value` as a rich result (with the result's other `fields`), or None when it is
    ordinary output. An item naming a file that `files` does not admit, or that is
    missing or too big, is a tool error."""
    try:
        rich = await _rich_output(value, files)
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


async def _rich_output(value: Any, files: FileFence) -> _RichOutput | None:
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
        content=await with_files_read(items, files),
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


async def with_files_read(items: list[dict[str, Any]], files: FileFence) -> list[dict[str, Any]]:
    """The content items with the files their `path`s name read in, at most
    MAX_FILE_BYTES for all of them together; raises `ContentError`."""
    left = MAX_FILE_BYTES
    done = []
    for index, item in enumerate(items, 1):
        item, size = await _with_file_read(item, files, index, left)
        left -= size
        done.append(item)
    return done


async def _with_file_read(
    item: dict[str, Any], files: FileFence, index: int, limit: int
) -> tuple[dict[str, Any], int]:
    """The item with its file read in, and the file's size (0: it names none)."""
    if item.get("type") in ("image", "audio") and "path" in item:
        item = dict(item)
        data, mime_type, size = await _read(item.pop("path"), files, index, limit)
        return {"mimeType": mime_type, **item, "data": data}, size
    resource = item.get("resource")
    if item.get("type") == "resource" and isinstance(resource, dict) and "path" in resource:
        resource = dict(resource)
        blob, mime_type, size = await _read(resource.pop("path"), files, index, limit)
        return {**item, "resource": {"mimeType": mime_type, **resource, "blob": blob}}, size
    return item, 0


async def _read(path: Any, files: FileFence, index: int, limit: int) -> tuple[str, str, int]:
    try:  # off the event loop: a slow disk stalls one thread, not every call
        data = await anyio.to_thread.run_sync(read_named_file, path, files, limit)
    except FileRefused as error:
        raise ContentError(f"content item {index}: {error}") from None
    mime_type = mimetypes.guess_type(PurePosixPath(path).name)[0] or "application/octet-stream"
    return base64.b64encode(data).decode("ascii"), mime_type, len(data)
