"""The program each call's main process starts as (x86-64 Linux): 60 bytes of machine code
that make the process a child subreaper and exec the tool, with no library, no loader.

A child subreaper is a flag only a process can set on itself, and exec keeps it. Setting
it from Python means forking the spawner, which costs 1 to 3 ms here (copying and then
tearing down page tables); vfork (`posix_spawn`) of this helper and its exec cost ~0.1 ms.

    helper PATH ARGV0 ARGS...   becomes a subreaper, then execve(PATH, [ARGV0, ARGS...], envp)

fd 3 is its report pipe: set close-on-exec, so a successful exec closes it; a failed one
writes the errno there (4 bytes, little-endian) and exits 127. The stopping variant first
stops itself (SIGSTOP), for the spawner to set its rlimits (prlimit) and continue it.
"""

from __future__ import annotations

import os
import platform
import struct

_LOAD_ADDRESS = 0x400000
_HEADERS = 64 + 56  # one ELF header, one program header


def _code(stop_first: bool) -> bytes:
    code = b""
    if stop_first:
        code += bytes.fromhex("b8270000000f05")  # getpid()
        code += bytes.fromhex("89c7be13000000b83e0000000f05")  # kill(pid, SIGSTOP)
    code += bytes.fromhex(
        "b89d000000" "bf24000000" "be01000000" "0f05"  # prctl(PR_SET_CHILD_SUBREAPER, 1)
        "b848000000" "bf03000000" "be02000000" "ba01000000" "0f05"  # fcntl(3, F_SETFD, FD_CLOEXEC)
        "488b0c24"  # rcx = argc
        "488b7c2410"  # rdi = argv[1] (the path)
        "488d742418"  # rsi = &argv[2]
        "488d54cc10"  # rdx = envp = &argv[argc + 1]
        "b83b000000" "0f05"  # execve(rdi, rsi, rdx)
        "f7d8" "50"  # push -rax (the errno)
        "b801000000" "bf03000000" "4889e6" "ba04000000" "0f05"  # write(3, &errno, 4)
        "b83c000000" "bf7f000000" "0f05"  # exit(127)
    )  # fmt: skip
    return code


def helper_program(stop_first: bool = False) -> bytes | None:
    """The helper as a static ELF executable; None where there is none (not x86-64)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    code = _code(stop_first)
    size = _HEADERS + len(code)
    elf_header = struct.pack(
        "<16sHHIQQQIHHHHHH",
        b"\x7fELF\x02\x01\x01" + bytes(9),
        2,  # ET_EXEC
        0x3E,  # x86-64
        1,
        _LOAD_ADDRESS + _HEADERS,  # entry point: the code, right after the headers
        64,  # program headers' offset
        0,
        0,
        64,
        56,
        1,
        0,
        0,
        0,
    )
    program_header = struct.pack("<IIQQQQQQ", 1, 5, 0, _LOAD_ADDRESS, _LOAD_ADDRESS, size, size, 0x1000)
    return elf_header + program_header + code


def load_helpers() -> tuple[str, str] | None:
    """The helper, without and with its stop first, in memory files: paths to exec them by;
    None where there are none (not x86-64, or memory files may not be executed here)."""
    paths = []
    for stop_first in (False, True):
        program = helper_program(stop_first)
        if program is None:
            return None
        try:
            fd = os.memfd_create("toolkiln-helper", os.MFD_CLOEXEC)
        except OSError:
            return None
        os.write(fd, program)
        paths.append(f"/proc/{os.getpid()}/fd/{fd}")
    try:  # a trial: memory files may be barred from exec (vm.memfd_noexec)
        pid = os.posix_spawn(paths[0], [b"toolkiln-helper", b"/bin/sh", b"sh", b"-c", b":"], {})
        _, status = os.waitpid(pid, 0)
    except OSError:
        return None
    return (paths[0], paths[1]) if status == 0 else None
