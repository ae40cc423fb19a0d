"""Why a bearer token was refused: the reason goes to the audit log, never to the tool."""

from __future__ import annotations


class TokenRefused(Exception):
    """The token is not accepted (401 `invalid_token`); the message says why."""
