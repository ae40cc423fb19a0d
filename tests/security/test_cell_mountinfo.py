"""What a cell puts back in its fresh private folders (`cell_kernel.mounts_inside`): the
outermost mount points strictly inside them, as /proc/self/mountinfo names them (octal
escapes undone), read at every call's end, most lines set aside unparsed."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path
from types import ModuleType

import pytest

import toolkiln.process

LINE = "{id} 1 0:{id} / {point} rw,relatime - tmpfs tmpfs rw\n"


def cell_kernel() -> ModuleType:
    path = Path(toolkiln.process.__file__).with_name("cell_kernel.py")  # run by path in the resident
    spec = importlib.util.spec_from_file_location("cell_kernel_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def listing(points: list[str]) -> bytes:
    return "".join(LINE.format(id=index + 20, point=point) for index, point in enumerate(points)).encode()


def test_the_outermost_mounts_inside_the_private_folders_escapes_undone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kernel = cell_kernel()
    points = [
        "/",
        "/proc",
        "/tmp",  # a private folder itself: not inside it
        "/tmpfoo/x",  # beside /tmp, not inside it
        "/tmp/tools\\040dir",  # "/tmp/tools dir"
        "/tmp/tools\\040dir/inner",  # inside another: cloned with it
        "/var/tmp/a\\134b",  # "/var/tmp/a\b"
        "/home/x\\040/tmp/y",  # /tmp further in
        "/var/tmp\\040x/y",  # "/var/tmp x/y": beside /var/tmp
    ]
    monkeypatch.setattr(kernel, "open", lambda *_: io.BytesIO(listing(points)), raising=False)
    assert kernel.mounts_inside(["/tmp", "/var/tmp/"]) == ["/var/tmp/a\\b", "/tmp/tools dir"]  # by length


def test_the_real_listing_reads_as_a_plain_parse_does() -> None:
    kernel = cell_kernel()
    with open("/proc/self/mountinfo", "rb") as real:
        points = [kernel.os.fsdecode(kernel._unescape(line.split()[4])) for line in real]
    folders = ["/proc", "/sys", "/dev"]
    inside = [p for p in points if any(p.startswith(folder + "/") for folder in folders)]
    outermost = {p for p in inside if not any(p != q and p.startswith(q + "/") for q in inside)}
    assert kernel.mounts_inside(folders) == sorted(outermost, key=len)
