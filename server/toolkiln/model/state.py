"""`config/server.json` `state`: where state shared by replicas lives (docs/configuration.md).

Without a URL, tasks are kept in an embedded SQLite file under the state folder (one
machine). With one (`redis://`, `rediss://` or `unix://`), in that Redis server, so
that every replica pointed at it sees every task. The URL in config/server.json may
not carry a password: build copies it into config/tools.json. A password goes in the
`TOOLKILN_STATE_URL` environment variable (or `serve --state-url`), whose URL wins.

`secret_file` names the file of the secret that replicas derive their `requestState`
keys from (toolkiln/state_secret.py, serve/calls/request_state.py), so a retry may
reach any of them. Only its path is here: the secret itself is never in a config file.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Annotated
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import AfterValidator, BaseModel, ConfigDict

STATE_SCHEMES = ("redis", "rediss", "unix")
_PREFIX = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


def check_state_url(url: str) -> str:
    """A URL of a Redis server, in the spelling of redis-py's `from_url`."""
    try:
        parts = urlsplit(url)
    except ValueError as error:
        raise ValueError(f"{redact_url(url)!r} is not a URL: {error}") from None
    if parts.scheme not in STATE_SCHEMES:
        raise ValueError(
            f"{redact_url(url)!r} is not a Redis URL: give redis://HOST:PORT/DB, rediss://... (TLS) "
            "or unix:///path/to/redis.sock"
        )
    if parts.scheme == "unix" and not parts.path:
        raise ValueError(f"{redact_url(url)!r} names no socket: unix:///path/to/redis.sock")
    if parts.scheme != "unix" and not parts.hostname:
        raise ValueError(f"{redact_url(url)!r} names no host: redis://HOST:PORT/DB")
    return url


def check_url_without_password(url: str) -> str:
    check_state_url(url)
    if has_password(url):
        raise ValueError(
            "the URL carries a password, which build would copy into config/tools.json; "
            "give the URL with its password in the TOOLKILN_STATE_URL environment variable instead"
        )
    return url


def has_password(url: str) -> bool:
    parts = urlsplit(url)
    return parts.password is not None or any(
        name == "password" for name, _ in parse_qsl(parts.query, keep_blank_values=True)
    )


def redact_url(url: str) -> str:
    """`url` fit to print: a password (in the user part or the query) becomes `***`."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if parts.password is not None:
            user, _, host = netloc.rpartition("@")
            name = user.split(":", 1)[0]
            netloc = f"{name}:***@{host}"
        query = urlencode(
            [
                (name, "***" if name == "password" else value)
                for name, value in parse_qsl(parts.query, keep_blank_values=True)
            ],
            safe="*",
        )
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        return "<a URL that could not be read>"


def _check_prefix(prefix: str) -> str:
    if not _PREFIX.fullmatch(prefix):
        raise ValueError(f"{prefix!r}: 1 to 64 letters, digits and _ . : -")
    return prefix


def _check_secret_file(path: str) -> str:
    if not PurePath(path).is_absolute():
        raise ValueError(f"{path!r} is a relative path; give the secret file's absolute path")
    return path


StateUrl = Annotated[str, AfterValidator(check_url_without_password)]
KeyPrefix = Annotated[str, AfterValidator(_check_prefix)]
SecretFile = Annotated[str, AfterValidator(_check_secret_file)]


class StateSettings(BaseModel):
    """Where the state that replicas share lives: none (one machine) or a Redis server."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    # redis://HOST:PORT/DB, rediss://... or unix:///path.sock; none: the embedded store.
    url: StateUrl | None = None
    # What every key starts with, so that two deployments may share one Redis server.
    key_prefix: KeyPrefix = "toolkiln:"
    # The file (absolute path, mode 0600) of the secret every replica derives its
    # requestState keys from; none: each process makes its own (one machine).
    secret_file: SecretFile | None = None
