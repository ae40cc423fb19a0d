"""Exceptions whose messages are written for the person who has to fix the problem."""

from __future__ import annotations


class ToolkilnError(Exception):
    """Base of every error toolkiln reports to a user."""


class ConfigError(ToolkilnError):
    """A config file is missing, is not valid JSON, or breaks its format."""


class DiscoveryError(ToolkilnError):
    """A script claims to be a tool but its declaration cannot be read.

    `path` and `line` say where; the message says what is wrong.
    """

    def __init__(self, message: str, *, path: str = "", line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.reason = message
        # One line: a newline in a file's name would forge a line of its own (a warning, a row).
        where = (f"{path}:{line}" if path and line else path).replace("\n", "\\n")
        super().__init__(f"{where}: {message}" if where else message)


class BuildError(ToolkilnError):
    """The per-tool configs cannot be compiled into one catalog."""


class ToolRunError(ToolkilnError):
    """A tool could not be started or does not exist."""


class ProcessStartError(ToolRunError):
    """The operating system refused to start a program.

    `about_arguments`: refused for what it was given (a value too big, a NUL character),
    not for the program itself.
    """

    def __init__(self, message: str, *, about_arguments: bool = False) -> None:
        super().__init__(message)
        self.about_arguments = about_arguments
