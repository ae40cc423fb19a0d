"""The handshake of a stdio client, answered while the mcp SDK is still loading.

Importing the SDK is most of a server's start (a Python that only imports it takes
about as long as the reference server's whole start). A client's first exchange,
`initialize` then `tools/list`, needs nothing of it: the answers follow from the
loaded catalog. So `serve --stdio` starts `EarlyAnswers` (a thread, stdlib only) as
soon as the catalog is loaded and imports the SDK meanwhile. The thread answers:

- `initialize` asking for `EARLY_VERSION` (the handshake era's latest, what clients
  speak today) with params it can check completely, as the SDK's server would;
- then `notifications/initialized`, and any number of `tools/list` without params.

Anything else (another version, a 2026-07-28 request, a ping, a call, a line it cannot
read) stops it where it stands: that line and everything after it is left for the
SDK, in order. At the hand-over (`hand_over`), the SDK's session is fed every message
the thread took, the answered requests under private ids whose answers the writer
drops (stdio/transport.py), so its state (initialized, the client's capabilities, the connection
the change notifications go to) is what it would have been; then the rest.

The answers are the SDK's own, field for field (tests/serve/stdio/test_stdio_early.py holds
them side by side for both eras, over the SDK's client).
"""

from __future__ import annotations

import json
import logging
import math
import os
import secrets
import select
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from toolkiln import __version__
from toolkiln.serve.tool_list import listed_tool, server_instructions

if TYPE_CHECKING:
    from toolkiln.runner import Registry

logger = logging.getLogger(__name__)

SERVER_NAME = "toolkiln"
EARLY_VERSION = "2025-11-25"  # mcp_types.version.LATEST_HANDSHAKE_VERSION (a test checks it)
# What the SDK's server advertises for toolkiln's handlers (handlers.py; a test checks it).
CAPABILITIES: dict[str, Any] = {
    "completions": {},
    "logging": {},
    "prompts": {"listChanged": True},
    "resources": {"listChanged": True, "subscribe": True},
    "tools": {"listChanged": True},
}
SILENCED_PREFIX = "toolkiln-early-"  # the ids of replayed requests, whose answers are dropped
READ_CHUNK = 64 * 1024

# What an `initialize` may hold for an early answer; anything else goes to the SDK.
_INIT_KEYS = {"protocolVersion", "capabilities", "clientInfo"}
_CLIENT_INFO_TEXT = {"name", "version", "title", "description", "websiteUrl"}
_CAPABILITY_OBJECTS = {"elicitation": {"form", "url"}, "sampling": {"context", "tools"}}


@dataclass
class HandOver:
    """The protocol's fds and what was read from them before the SDK's session runs."""

    wire_in: int
    wire_out: int
    replay: bytes = b""  # the messages the thread took (answered ones under silenced ids), then unread input
    eof: bool = False
    silenced: set[str] = field(default_factory=set)


class EarlyAnswers:
    """Answers the handshake on the protocol's fds in a thread, until `hand_over`."""

    def __init__(self, registry: Registry, wire_in: int, wire_out: int) -> None:
        self.registry = registry
        self.wire_in = wire_in
        self.wire_out = wire_out
        self.buffer = bytearray()
        self.replay: list[bytes] = []
        self.silenced: set[str] = set()
        self.eof = False
        self.stage = "new"  # new -> answered (initialize) -> initialized
        self.confirm_argument = True
        self.tool_list: bytes | None = None
        self._id_token = secrets.token_hex(8)
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(target=self._run, name="toolkiln-early-answers", daemon=True)

    @classmethod
    def start(cls, registry: Registry) -> EarlyAnswers:
        """Move the protocol to private fds (see `divert_protocol_fds`) and start answering."""
        early = cls(registry, *divert_protocol_fds())
        early._thread.start()
        return early

    def hand_over(self) -> HandOver:
        """Stop the thread (after the answer it may be writing) and say what the SDK gets."""
        os.write(self._wake_write, b"x")
        self._thread.join()
        os.close(self._wake_read)
        os.close(self._wake_write)
        replay = b"".join(self.replay) + bytes(self.buffer)
        logger.debug("the SDK takes over after %d early answers", len(self.silenced))
        return HandOver(self.wire_in, self.wire_out, replay, self.eof, set(self.silenced))

    def _run(self) -> None:
        try:
            self._answer_until_stopped()
        except OSError as error:  # the client went away: the SDK's session finds out too
            logger.debug("early answers stopped: %s", error)

    def _answer_until_stopped(self) -> None:
        poller = select.poll()
        poller.register(self.wire_in, select.POLLIN)
        poller.register(self._wake_read, select.POLLIN)
        while not self.eof:
            ready = {fd for fd, _ in poller.poll()}
            if self._wake_read in ready:
                return
            chunk = os.read(self.wire_in, READ_CHUNK)
            self.eof = not chunk
            self.buffer += chunk
            while (end := self.buffer.find(b"\n")) >= 0:
                line = bytes(self.buffer[: end + 1])
                if not self._take(line):
                    return  # this line and the rest are the SDK's
                del self.buffer[: end + 1]

    def _take(self, line: bytes) -> bool:
        """Answer or keep `line`; False when it is the SDK's to answer."""
        if not line.strip(b" \t\r\n"):
            return True  # the SDK's reader skips a blank line too
        message = _read_message(line)
        if message is None:
            return False
        method, params = message.get("method"), message.get("params")
        if "id" not in message:  # a notification
            if self.stage != "answered" or method != "notifications/initialized" or params not in (None, {}):
                return False
            self.stage = "initialized"
            self.replay.append(line)
            return True
        if self.stage == "new" and method == "initialize" and _answerable_initialize(params):
            self.confirm_argument = "elicitation" not in cast(dict[str, Any], params)["capabilities"]
            self._answer(message, line, self._initialize_result())
            self.stage = "answered"
            self.tool_list = self._tool_list()  # made while the client reads the answer
            return True
        if self.stage == "initialized" and method == "tools/list" and params in (None, {}):
            self._answer(message, line, None)
            return True
        return False

    def _answer(self, message: dict[str, Any], line: bytes, result: dict[str, Any] | None) -> None:
        head = json.dumps({"jsonrpc": "2.0", "id": message["id"]}, ensure_ascii=False, separators=(",", ":"))
        head = head[:-1]
        if result is None:
            body = self.tool_list or self._tool_list()
        else:
            body = json.dumps(result, ensure_ascii=False, separators=(",", ":")).encode()
        silenced = f"{SILENCED_PREFIX}{len(self.silenced)}-{self._id_token}"
        self.silenced.add(silenced)  # before the answer goes: the SDK must see what was answered
        self.replay.append(json.dumps({**message, "id": silenced}, ensure_ascii=False).encode() + b"\n")
        _write_all(self.wire_out, head.encode() + b',"result":' + body + b"}\n")
        logger.debug("answered %s while the SDK was loading", message["method"])

    def _initialize_result(self) -> dict[str, Any]:
        return {
            "capabilities": CAPABILITIES,
            "instructions": server_instructions(self.registry.tools_dir),
            "protocolVersion": EARLY_VERSION,
            "serverInfo": {"name": SERVER_NAME, "version": __version__},
        }

    def _tool_list(self) -> bytes:
        tools = [listed_tool(tool, self.confirm_argument) for tool in self.registry.tools.values()]
        return json.dumps({"tools": tools}, ensure_ascii=False, separators=(",", ":")).encode()


def divert_protocol_fds() -> tuple[int, int]:
    """Move the protocol to private fds; fd 0 reads /dev/null and fd 1 writes to stderr,
    so a stray print (ours or a library's) can never corrupt the protocol."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return wire_in, wire_out


def restore_protocol_fds(wire_in: int, wire_out: int) -> None:
    os.dup2(wire_in, 0)
    os.dup2(wire_out, 1)
    os.close(wire_in)
    os.close(wire_out)


def _read_message(line: bytes) -> dict[str, Any] | None:
    """A JSON-RPC request or notification in its plainest form; None for anything else."""
    try:  # as strictly as the SDK's reader: UTF-8 (no BOM), no NaN, no number past a float
        message = json.loads(line.decode("utf-8"), parse_constant=_refuse, parse_float=_finite)
    except ValueError:  # not JSON, not UTF-8, or not finite
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    if not set(message) <= {"jsonrpc", "id", "method", "params"} or not isinstance(
        message.get("method"), str
    ):
        return None
    request_id = message.get("id", 0)
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    if isinstance(request_id, int) and not -(2**63) <= request_id < 2**63:
        return None  # past what the SDK's reader takes for an id
    try:  # a lone surrogate (`"\\ud800"`) is no text the SDK reads, nor one that can be written
        json.dumps(message, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return None
    return message


def _refuse(constant: str) -> None:
    raise ValueError(constant)


def _finite(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise ValueError(text)
    return number


def _answerable_initialize(params: Any) -> bool:
    """Whether the SDK's server would accept these `initialize` params and negotiate
    `EARLY_VERSION`, as far as can be told for sure without it."""
    if (
        not isinstance(params, dict)
        or set(params) != _INIT_KEYS
        or params["protocolVersion"] != EARLY_VERSION
    ):
        return False
    info, capabilities = params["clientInfo"], params["capabilities"]
    if not isinstance(info, dict) or not {"name", "version"} <= set(info) <= _CLIENT_INFO_TEXT:
        return False
    if not all(isinstance(value, str) for value in info.values()):
        return False
    return isinstance(capabilities, dict) and all(
        _plain_capability(name, value) for name, value in capabilities.items()
    )


def _plain_capability(name: str, value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if name == "roots":
        return set(value) <= {"listChanged"} and all(isinstance(flag, bool) for flag in value.values())
    if name == "experimental":
        return all(isinstance(entry, dict) for entry in value.values())
    known = _CAPABILITY_OBJECTS.get(name)
    return (
        known is not None and set(value) <= known and all(isinstance(entry, dict) for entry in value.values())
    )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:  # the client's pipe may be non-blocking
            select.select([], [fd], [])
