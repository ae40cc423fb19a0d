"""What replicas tell each other through Redis, sealed with their shared secret.

Whoever can write to the Redis server that replicas share could otherwise switch tools,
announce rebuilds, hand a waiting script answers or keep a dead replica alive. So every
value a replica acts on that came through Redis is sealed (`Seals.seal`) and opened
(`Seals.open`) with a key of its own purpose, derived from `state.secret_file`
(HKDF-SHA256, a label per purpose: a key never serves two), and what is signed holds:

- the purpose (switch news, rebuild news, a relayed message, its reply, a heartbeat, a
  task's record, an event of a resumable stream): a value sealed for one is refused as
  another;
- the deployment (the key prefix): a value from another deployment sharing the Redis
  server, even with the same secret, is refused;
- what the value is about (the instance whose inbox or heartbeat it is in, the message
  it replies to, the task it records, the stream it is in): it cannot be moved to
  another key;
- when it was issued: a reader refuses what is older than it accepts (`max_age`), and
  `SeenOnce` refuses a value used before.

A sealed value is `tk1.<purpose>.<issued ms>.<HMAC-SHA256, base64url>.<payload>`: the
payload stays readable (Redis is not made private by this; docs/security.md). Every
secret in the file opens, the first seals (rotation, as in serve/calls/request_state.py). No SDK, no
`redis`: `toolkiln build` seals its news too.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from toolkiln.state_secret import derive_key

Purpose = Literal[
    "switch-news",
    "rebuild-news",
    "relay-message",
    "relay-reply",
    "owner-heartbeat",
    "task-record",
    "stream-event",
]
PURPOSES: tuple[Purpose, ...] = get_args(Purpose)
VERSION = "tk1"
SKEW_SECONDS = 5.0  # how far ahead of this replica's clock another's may be
HEARTBEAT_SECONDS = 10.0  # a heartbeat is alive this long after it was issued (tasks/owners.py)
_LABEL = b"toolkiln/v1/redis/"  # + purpose: the HKDF label of each purpose's key


class SealError(Exception):
    """A value that came through Redis was not sealed by this deployment for this use;
    the message says how, for the log."""


@dataclass(frozen=True)
class Opened:
    payload: str
    issued: float  # seconds since the epoch, by the sealer's clock


class Seals:
    """Seals and opens the values of one deployment (`deployment`: its key prefix)."""

    def __init__(self, secrets: Sequence[bytes], deployment: str) -> None:
        if not secrets:
            raise ValueError("no secret to seal with")
        self.deployment = deployment
        self.rekey(secrets)

    def rekey(self, secrets: Sequence[bytes]) -> None:
        """Seal with `secrets[0]` and open with any of them from now on (the secret file
        was read again: serve/http/credentials.py). Every holder of these seals sees the change."""
        if not secrets:
            raise ValueError("no secret to seal with")
        self._keys = {purpose: [_key(secret, purpose) for secret in secrets] for purpose in PURPOSES}

    def seal(self, purpose: Purpose, payload: str, *, about: str = "", now: float | None = None) -> str:
        issued = str(int((time.time() if now is None else now) * 1000))
        mac = self._mac(self._keys[purpose][0], purpose, about, issued, payload)
        return f"{VERSION}.{purpose}.{issued}.{mac}.{payload}"

    def open(
        self, purpose: Purpose, text: object, *, about: str = "", max_age: float | None = None
    ) -> Opened:
        """The payload of `text` sealed for `purpose` about `about` by this deployment,
        at most `max_age` seconds ago; `SealError` that says why not."""
        if not isinstance(text, str):
            raise SealError("not text")
        parts = text.split(".", 4)
        if len(parts) != 5 or parts[0] != VERSION:
            raise SealError("not sealed (a value written by hand, or by a replica without the shared secret)")
        _, named, issued, mac, payload = parts
        if named != purpose:
            raise SealError(f"sealed as {named[:40]!r}, presented as {purpose!r}")
        if not issued.isdigit() or len(issued) > 15:
            raise SealError("its issued time is not one")
        if not any(
            hmac.compare_digest(mac, self._mac(key, purpose, about, issued, payload))
            for key in self._keys[purpose]
        ):
            raise SealError(
                "its seal does not verify: altered, moved from another key, sealed by another "
                "deployment, or with another secret"
            )
        at = int(issued) / 1000
        age = time.time() - at
        if age < -SKEW_SECONDS:
            raise SealError(f"issued {-age:.0f} s in the future")
        if max_age is not None and age > max_age:
            raise SealError(f"issued {age:.0f} s ago, older than the {max_age:g} s it is good for")
        return Opened(payload, at)

    def open_one_of(
        self, purposes: Sequence[Purpose], text: object, *, about: str = "", max_age: float | None = None
    ) -> tuple[Purpose, Opened]:
        """`open` for the one of `purposes` that `text` names (a channel that carries several)."""
        named = text.split(".", 2)[1:2] if isinstance(text, str) else []
        purpose = next((purpose for purpose in purposes if [purpose] == named), purposes[0])
        return purpose, self.open(purpose, text, about=about, max_age=max_age)

    def _mac(self, key: bytes, purpose: str, about: str, issued: str, payload: str) -> str:
        signed = "\0".join((VERSION, self.deployment, purpose, about, issued, payload)).encode()
        digest = hmac.new(key, signed, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def heartbeat(self, instance: str) -> str:
        """The value of `instance`'s heartbeat key."""
        return self.seal("owner-heartbeat", "", about=instance)


def unsealed_payload(text: str) -> str:
    """The payload of a sealed `text`, unverified (`text` itself when it is not sealed):
    for a reader without the secret, which can act on nothing it reads."""
    parts = text.split(".", 4)
    return parts[4] if len(parts) == 5 and parts[0] == VERSION else text


def beats(seals: Seals | None, instance: str, value: object) -> bool:
    """Whether `value`, read from `instance`'s heartbeat key, says that it runs. Without a
    shared secret any value does (a heartbeat cannot be told from a forged one)."""
    if value is None:
        return False
    if seals is None:
        return True
    try:
        seals.open("owner-heartbeat", value, about=instance, max_age=HEARTBEAT_SECONDS)
    except SealError:
        return False
    return True


class SeenOnce:
    """Names of values already used, each kept until it would be refused as stale anyway:
    a replayed value is refused once its first use is known."""

    def __init__(self, keep_seconds: float) -> None:
        self.keep_seconds = keep_seconds
        self._seen: dict[str, float] = {}  # name: when it may be forgotten (monotonic)

    def first(self, name: str) -> bool:
        """Whether `name` is used for the first time (it is remembered now)."""
        now = time.monotonic()
        if len(self._seen) > 1024:
            self._seen = {key: until for key, until in self._seen.items() if until > now}
        if name in self._seen and self._seen[name] > now:
            return False
        self._seen[name] = now + self.keep_seconds
        return True


def _key(secret: bytes, purpose: Purpose) -> bytes:
    return derive_key(secret, _LABEL + purpose.encode())  # a label per purpose: a key never serves two
