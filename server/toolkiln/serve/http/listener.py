"""The listening socket of `serve --http`, and what to do when the address cannot be had.

A port already taken, a privileged port, a host that is not this machine's: each is one
line that names the address and the option that fixes it, never a traceback.
"""

from __future__ import annotations

import errno
import socket

from toolkiln.errors import ToolkilnError


def bind(host: str, port: int) -> socket.socket:
    """A listening socket; port 0 picks a free one (its number: `getsockname()[1]`)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        raise ToolkilnError(
            f"--host {host}: not an address of this machine nor a name it can resolve ({error.strerror}); "
            "use 127.0.0.1, or 0.0.0.0 for every interface"
        ) from None
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(1024)
    except OSError as error:
        listener.close()
        raise ToolkilnError(describe_bind_error(host, port, error)) from None
    return listener


def describe_bind_error(host: str, port: int, error: OSError) -> str:
    """One line: which address could not be had, why, and what to do."""
    if error.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is in use (another toolkiln serve?): stop it, or choose another "
            "port with --port/-p (--port 0 picks a free one)"
        )
    if error.errno == errno.EACCES:
        return (
            f"port {port} on {host}: permission denied (ports below 1024 need privileges): "
            "choose another with --port/-p, such as the default 8765"
        )
    if error.errno == errno.EADDRNOTAVAIL:
        return (
            f"cannot listen on {host}: it is not an address of this machine; use 127.0.0.1, "
            "or 0.0.0.0 for every interface, with --host"
        )
    return f"cannot listen on {host} port {port}: {error.strerror or error}"
