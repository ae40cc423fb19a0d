"""Start `toolkiln serve` over stdio as a real process, connected to the SDK's client."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from tests.conftest import child_env


@asynccontextmanager
async def connect(
    config_dir: Path, mode: str, *args: str, client: dict[str, Any] | None = None, **env: str
) -> AsyncIterator[Client]:
    """A client of `toolkiln serve --stdio` on `config_dir`; `env` goes to the server."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolkiln", "serve", "--config-dir", str(config_dir), "--tools-dir", "unused", *args],
        env={**child_env(), **env},
    )
    async with Client(params, mode=mode, **(client or {})) as session:
        yield session


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content)
