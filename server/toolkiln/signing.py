"""Values the server signs, each for one purpose, so that none can stand in for another.

A `Signer` holds one secret and one audience (who the values are for: the dashboard of
a deployment, a deployment's replicas). It never signs with the secret itself: each
purpose has its own key, derived from the secret, the audience and the purpose's name
(HKDF-SHA256, RFC 5869), and the name and the audience are in what is signed too. So a
value made for one purpose fails as any other, even where the two look alike (a login
challenge and a session are both `<issued>.<nonce>.<mac>`).

A purpose is declared once, at import, and its name can be declared only once in the
process (a second `Purpose("session", ...)` raises), so two purposes cannot share a key
by accident. There are two kinds, and the signer takes each only where it fits:

- a `Purpose` is a value that stands alone and expires: `sign(purpose, payload)` gives
  `<issued>.<payload>.<mac>`; `verify(purpose, value)` gives the payload back while the
  value is younger than the purpose's own lifetime (the caller cannot pass another one).
- a `Binding` is a value bound to others it is presented with (a session's CSRF token,
  bound to the session's nonce): `bind(binding, *parts)` is a MAC of those parts, and
  `bound(binding, presented, *parts)` checks one in constant time. It expires with what
  it is bound to.

A secret is replaced without refusing what the old one signed: `retired` secrets check
and never sign (the shape of a `state.secret_file`, whose first line seals).

No mcp, no web framework: any part of toolkiln may sign with it (docs/security.md).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

FORMAT = "toolkiln-signed/1"
CLOCK_SKEW_SECONDS = 60  # a value issued this far in the future is taken (replicas' clocks)
_SALT = b"toolkiln signer"
_PAYLOAD = re.compile(r"[A-Za-z0-9_-]{1,256}")
_NAME = re.compile(r"[a-z][a-z0-9-]{0,63}")
_declared: set[str] = set()
_declaring = threading.Lock()


def _declare(name: str) -> None:
    if not _NAME.fullmatch(name):
        raise ValueError(f"a signing purpose's name is lowercase letters, digits and '-': {name!r}")
    with _declaring:
        if name in _declared:
            raise ValueError(f"the signing purpose {name!r} is declared twice: give the new one its own name")
        _declared.add(name)


@dataclass(frozen=True)
class Purpose:
    """What a standalone signed value is for, and how long it is good (seconds)."""

    name: str
    lifetime: int

    def __post_init__(self) -> None:
        if self.lifetime <= 0:
            raise ValueError(f"the signing purpose {self.name!r} needs a lifetime above 0")
        _declare(self.name)


@dataclass(frozen=True)
class Binding:
    """What a value bound to other values is for (it lives as long as they do)."""

    name: str

    def __post_init__(self) -> None:
        _declare(self.name)


class Signer:
    """Signs and checks values under per-purpose keys derived from `secret`, for `audience`.
    `retired` secrets (a secret being replaced) still check, and never sign."""

    def __init__(self, secret: bytes, audience: str, *, retired: Sequence[bytes] = ()) -> None:
        if not secret or not all(retired):
            raise ValueError("a signing secret cannot be empty")
        self.audience = audience
        # HKDF-Extract of each secret, the signing one first.
        self._prks = [hmac.new(_SALT, one, hashlib.sha256).digest() for one in (secret, *retired)]
        self._keys: dict[tuple[int, str], hmac.HMAC] = {}

    def sign(self, purpose: Purpose, payload: str, *, now: float | None = None) -> str:
        """`<issued>.<payload>.<mac>`: good for `purpose` only, for its lifetime."""
        if not _PAYLOAD.fullmatch(payload):
            raise ValueError("a signed payload is 1 to 256 URL-safe characters (A-Z a-z 0-9 _ -)")
        issued = str(int(time.time() if now is None else now))
        return f"{issued}.{payload}.{self._mac(0, purpose.name, issued, payload)}"

    def verify(self, purpose: Purpose, value: str | None, *, now: float | None = None) -> str | None:
        """The payload of `value` if this signer signed it for `purpose` less than the
        purpose's lifetime ago; else None."""
        issued, _, rest = (value or "").partition(".")
        payload, _, mac = rest.partition(".")
        if not (issued.isdigit() and len(issued) <= 12 and _PAYLOAD.fullmatch(payload)):
            return None
        if not self._matches(mac, purpose.name, issued, payload):
            return None
        age = (time.time() if now is None else now) - int(issued)
        return payload if -CLOCK_SKEW_SECONDS <= age < purpose.lifetime else None

    def bind(self, binding: Binding, *parts: str) -> str:
        """A value good for `binding` with exactly these `parts` (and nothing else)."""
        return self._mac(0, binding.name, *parts)

    def bound(self, binding: Binding, presented: str | None, *parts: str) -> bool:
        """Whether `presented` is `bind(binding, *parts)`, compared in constant time."""
        return presented is not None and self._matches(presented, binding.name, *parts)

    def _matches(self, presented: str, name: str, *parts: str) -> bool:
        given = presented.encode()
        matched = [
            hmac.compare_digest(given, self._mac(i, name, *parts).encode()) for i in range(len(self._prks))
        ]
        return any(matched)  # every key tried: the time taken does not say which matched

    def _mac(self, index: int, name: str, *parts: str) -> str:
        # Every part length-prefixed: ("a.b", "c") and ("a", "b.c") are different messages.
        framed = [FORMAT, name, self.audience, *parts]
        mac = self._keyed(index, name).copy()
        mac.update("".join(f"{len(part)}:{part}" for part in framed).encode())
        return base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode()

    def _keyed(self, index: int, name: str) -> hmac.HMAC:
        """An HMAC under the purpose's own key (HKDF-Expand of one block), made once."""
        keyed = self._keys.get((index, name))
        if keyed is None:
            info = f"{FORMAT}\0{self.audience}\0{name}".encode()
            key = hmac.new(self._prks[index], info + b"\x01", hashlib.sha256).digest()
            keyed = self._keys[index, name] = hmac.new(key, digestmod=hashlib.sha256)
        return keyed
