"""Load, validate and atomically write toolkiln's JSON files.

A bad file becomes one `ConfigError` that names the file, the line and the field,
so the user knows exactly what to fix.

The models (and pydantic, ~0.1 s to import) load on the first file read through them:
an unchanged `discover` and most commands never need them.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from toolkiln.errors import ConfigError

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

    from toolkiln.model import Catalog, ServerConfig, ToolConfig

ModelT = TypeVar("ModelT", bound="BaseModel")

_INDENTED = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
CATALOG_FILE = "tools.json"
TOOL_CONFIG_DIR = "tools"
SERVER_CONFIG_FILE = "server.json"


def catalog_path(config_dir: Path) -> Path:
    return config_dir / CATALOG_FILE


def tool_configs_dir(config_dir: Path) -> Path:
    return config_dir / TOOL_CONFIG_DIR


def tool_config_path(config_dir: Path, name: str) -> Path:
    return tool_configs_dir(config_dir) / f"{name}.json"


def load_tool_config(path: Path) -> ToolConfig:
    from toolkiln.model import ToolConfig

    return load_model(path, ToolConfig)


def load_server_config(config_dir: Path) -> ServerConfig:
    """`config/server.json`, or the defaults when there is none."""
    from toolkiln.model import ServerConfig

    path = config_dir / SERVER_CONFIG_FILE
    return load_model(path, ServerConfig) if path.exists() else ServerConfig()


def load_catalog(path: Path) -> Catalog:
    from toolkiln.model import Catalog
    from toolkiln.model.parameter import COMPILED

    if not path.exists():
        raise ConfigError(
            f"{path}: no compiled config here; run `toolkiln discover` and `toolkiln build` first"
        )
    # Written by build, which checked every parameter: the consistency checks of ~2,000
    # parameters would cost ~11 ms of each start with 1,000 tools.
    return load_model(path, Catalog, context={COMPILED: True})


def write_model(path: Path, model: BaseModel, *, sync: bool = True) -> None:
    write_json_atomic(path, model.model_dump(mode="json"), sync=sync)


def write_tool_config(path: Path, config: ToolConfig, *, sync: bool = True) -> None:
    write_model(path, config, sync=sync)


def render_json(data: Any, *, sort_keys: bool = True) -> str:
    """The one JSON style of toolkiln's files: sorted, indented, newline-terminated.

    Files of other programs (an MCP client's config) keep their own key order. orjson
    writes it as the standard encoder does (~2 against ~100 us a tool config: the standard
    encoder has no C path for indented output); what orjson refuses (an integer past 64
    bits, a key that is no string) is the standard encoder's.
    """
    try:
        options = _INDENTED | (orjson.OPT_SORT_KEYS if sort_keys else 0)
        return orjson.dumps(data, option=options).decode()
    except TypeError:
        return json.dumps(data, indent=2, sort_keys=sort_keys, ensure_ascii=False) + "\n"


def write_json_atomic(
    path: Path, data: Any, mode: int | None = None, *, sort_keys: bool = True, sync: bool = True
) -> None:
    """Write `data` as JSON with `write_text_atomic`."""
    write_text_atomic(path, render_json(data, sort_keys=sort_keys), mode, sync=sync)


def write_text_atomic(path: Path, text: str, mode: int | None = None, *, sync: bool = True) -> None:
    """Write `text` so that readers see either the old file or the new one, never half.

    The file keeps its mode, or gets `mode`, or the umask's default when it is new. The
    temporary file of a file with a mode to keep or given is made with mode 0600 and given
    that mode before it takes the file's place, so a private file is never readable by
    others, not even for a moment; that of a new file is made with the umask's default,
    its final mode. `sync=False` leaves its flush to disk to one `sync_filesystem` after a
    batch of writes (one fsync per file was ~40% of a cold discovery of 1,000 tools).
    Plain os calls, no file object: ~55 ms per 1,000 small files written, ~200 with
    tempfile.mkstemp, os.fdopen and a umask read from /proc.
    """
    data = text.encode("utf-8")
    final = _existing_mode(path) if mode is None else mode
    fd, temp_name = _open_temporary(path, 0o666 if final is None else 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if final is not None:
                os.fchmod(fd, final)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def _open_temporary(path: Path, mode: int) -> tuple[int, str]:
    """A new file beside `path` (its folder made when missing), open for writing: its fd
    and name. `O_EXCL | O_NOFOLLOW`: never a file or link that was there before."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        name = os.path.join(path.parent, f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(name, flags, mode), name
        except FileExistsError:
            continue
        except FileNotFoundError:
            if path.parent.is_dir():
                raise
            path.parent.mkdir(parents=True, exist_ok=True)
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(path.parent))


def sync_filesystem(folder: Path) -> None:
    """Flush to disk what was written on `folder`'s filesystem (Linux's syncfs: one call
    for a batch of files written with `sync=False`; elsewhere, every filesystem's)."""
    import ctypes

    try:
        syncfs = ctypes.CDLL(None, use_errno=True).syncfs
    except AttributeError:  # not Linux
        os.sync()
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        if syncfs(fd) != 0:
            os.sync()
    finally:
        os.close(fd)


def _existing_mode(path: Path) -> int | None:
    """The permission bits of the file at `path`, or None when there is none."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        return None


def load_model(path: Path, model: type[ModelT], context: dict[str, Any] | None = None) -> ModelT:
    """`path` read as `model`, or a `ConfigError` naming the file, line and field."""
    from pydantic import ValidationError

    try:
        if not stat.S_ISREG(path.stat().st_mode):  # reading a FIFO would wait forever
            raise ConfigError(f"{path}: not a regular file; replace it with the JSON file")
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    try:
        # Parsing and validating in one pass (pydantic's JSON parser) takes half the time of
        # json.loads then model_validate: ~40 ms instead of ~80 for 1,000 compiled tools.
        return model.model_validate_json(text, context=context)
    except ValidationError as error:
        if any(detail["type"] == "json_invalid" for detail in error.errors()):
            try:
                json.loads(text)
            except json.JSONDecodeError as invalid:  # the json module names the line
                raise ConfigError(
                    f"{path}:{invalid.lineno}: invalid JSON: {invalid.msg} (column {invalid.colno})"
                ) from None
            except RecursionError:
                raise ConfigError(f"{path}: invalid JSON: nested too deeply") from None
        raise ConfigError(_describe_validation_error(path, text, error)) from None


def _describe_validation_error(path: Path, text: str, error: ValidationError) -> str:
    lines = []
    for detail in error.errors(include_url=False):
        loc = detail["loc"]
        field = ".".join(str(part) for part in loc) or "(top level)"
        message = detail["msg"].removeprefix("Value error, ")
        if detail["type"] == "extra_forbidden":
            message = "unknown key (check its spelling)"
        elif detail["type"] == "missing":
            message = "required key is missing"
        line = locate_key(text, loc)
        where = f"{path}:{line}" if line else str(path)
        lines.append(f"{where}: {field}: {message}")
    return "\n".join(lines)


def locate_key(text: str, loc: tuple[int | str, ...]) -> int | None:
    """The line where the innermost part of `loc` is found in the JSON `text`.

    Follows object keys and array indexes through the document, so an error in the
    third parameter points at the third parameter. When a part cannot be followed
    (a union tag of pydantic's, or text that is not JSON), the deepest part reached
    gives the line; None when not even the first part was found.
    """
    found: int | None = None
    position = _skip_space(text, 0)
    try:
        for part in loc:
            if isinstance(part, str):
                at = _find_member(text, position, part)
            else:
                at = _find_item(text, position, part)
            if at is None:
                break
            found, position = at
    except (ValueError, IndexError):  # not JSON past this point
        pass
    return None if found is None else text.count("\n", 0, found) + 1


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def _skip_space(text: str, position: int) -> int:
    match = _SPACE.match(text, position)
    return match.end() if match else position


def _find_member(text: str, position: int, key: str) -> tuple[int, int] | None:
    """(where the key starts, where its value starts) in the object at `position`."""
    if text[position] != "{":
        return None
    position = _skip_space(text, position + 1)
    while text[position] != "}":
        name, after = _DECODER.raw_decode(text, position)
        after = _skip_space(text, after)
        if text[after] != ":":
            return None
        value = _skip_space(text, after + 1)
        if name == key:
            return position, value
        position = _skip_space(text, _DECODER.raw_decode(text, value)[1])
        if text[position] != ",":
            return None
        position = _skip_space(text, position + 1)
    return None


def _find_item(text: str, position: int, index: int) -> tuple[int, int] | None:
    """(where item `index` starts, twice) in the array at `position`."""
    if text[position] != "[":
        return None
    position = _skip_space(text, position + 1)
    for _ in range(index):
        if text[position] == "]":
            return None
        position = _skip_space(text, _DECODER.raw_decode(text, position)[1])
        if text[position] != ",":
            return None
        position = _skip_space(text, position + 1)
    return None if text[position] == "]" else (position, position)
