"""Which event loop `serve --http` runs on (cli/transports.py): uvloop, a dependency, unless
TOOLKILN_LOOP=asyncio asks for asyncio's own."""

from __future__ import annotations

import anyio
import pytest

from toolkiln.cli.transports import http_loop_options


def test_http_serves_on_uvloop() -> None:
    options = http_loop_options()
    assert options == {"use_uvloop": True}

    async def loop_module() -> str:
        import asyncio

        return type(asyncio.get_running_loop()).__module__

    assert anyio.run(loop_module, backend_options=options).startswith("uvloop")


def test_asyncio_loop_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLKILN_LOOP", "asyncio")
    assert http_loop_options() == {}
