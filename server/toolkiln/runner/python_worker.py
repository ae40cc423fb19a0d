"""The warm worker of a Python-module tool: imports the module once, then runs call after call.

Run as a script by the server, never imported by it: `python python_worker.py MODULE ENTRY [FUNCTION]`
(ENTRY: `execute`, `main`, `execute(**)`, or `run(**)`, llm-functions' `def run`; FUNCTION:
another function to call, one of an agent's `tools.py`)
(standard library only, so a worker starts in the time Python itself takes). The
module's folder is first on `sys.path` and the working directory, so it can import its
neighbours. Requests arrive on stdin, one JSON line each: `{"params": {...}}`. Each answer
is one JSON line on the original stdout: `{"returned": value}` (with `"printed": text`
for `run(**)`, whose prints are its output), `{"raised": type,
"message": ..., "where": ..., "traceback": ...}` (`where`: the line of the tool's own file
the exception came through, last) or `{"exited": code}`. The module's own prints go to
stderr, where the server reads log and progress lines as it does for any tool.
"""

import asyncio
import contextlib
import importlib.util
import inspect
import io
import json
import os
import signal
import sys
import traceback

# The function each entry calls.
_FUNCTIONS = {"main": "main", "execute": "execute", "execute(**)": "execute", "run(**)": "run"}


def main() -> int:
    module_path, entry = sys.argv[1], sys.argv[2]
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # print() in the tool goes to stderr, never into the answers
    try:
        function = _load(module_path, sys.argv[3] if len(sys.argv) > 3 else _FUNCTIONS.get(entry, "execute"))
    except BaseException as error:
        _answer(answers, _raised(error, module_path))
        return 1
    _answer(answers, {"ready": True})
    for line in sys.stdin:
        params = json.loads(line)["params"]
        before = _children()
        try:
            if entry == "run(**)":
                answer = _run_function(function, params)
            else:
                answer = {"returned": function(**params) if entry == "execute(**)" else function(params)}
        except SystemExit as exit:
            answer = {"exited": exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)}
        except BaseException as error:
            answer = _raised(error, module_path)
        _kill_new_children(before)
        _answer(answers, answer)
        if "raised" in answer and answer["raised"] == "MemoryError":
            return 1  # a worker that ran out of memory may be broken: the server starts a new one
    return 0


def _children() -> set[int]:
    """The worker's children (Linux; none elsewhere). It was started as a child subreaper
    (`process/spawner_main.py`): orphans of its calls, double-forked daemons too, are its children."""
    pids: set[int] = set()
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError), open(f"/proc/self/task/{task}/children") as listing:
                pids.update(int(pid) for pid in listing.read().split())
    return pids


def _kill_new_children(before: set[int]) -> None:
    """No process outlives its call: kill what the call left running (children the worker
    had before it, started at import, stay), generation by generation, and reap it."""
    while left := _children() - before:
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in left:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _run_function(function, params: dict) -> dict:  # type: ignore[no-untyped-def, type-arg]
    """llm-functions' `run(**arguments)`: what it prints on stdout and what it returns
    (awaited, when run is async) make the result. An argument the client left out that
    has no default in Python (an `Optional[X]` without `= None`) is None."""
    for name, parameter in inspect.signature(function).parameters.items():
        missing = parameter.default is inspect.Parameter.empty and name not in params
        if missing and parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            params[name] = None
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        value = function(**params)
        if inspect.isawaitable(value):
            value = asyncio.run(_awaited(value))  # type: ignore[no-untyped-call]
    return {"returned": value, "printed": printed.getvalue()}


async def _awaited(value):  # type: ignore[no-untyped-def]
    return await value


def _load(module_path: str, name: str):  # type: ignore[no-untyped-def]
    folder = os.path.dirname(os.path.abspath(module_path))
    sys.path.insert(0, folder)
    sys.argv = [module_path]
    stem = os.path.splitext(os.path.basename(module_path))[0]
    module_name = stem if stem.isidentifier() and stem not in sys.modules else "toolkiln_tool"
    spec = importlib.util.spec_from_file_location(module_name, module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return getattr(module, name)


def _raised(error: BaseException, module_path: str) -> dict[str, str]:
    frames = error.__traceback__.tb_next if error.__traceback__ else None  # from the tool's frame on
    lines = traceback.format_exception(type(error), error, frames)
    answer = {"raised": type(error).__name__, "message": str(error), "traceback": "".join(lines)}
    return {**answer, "where": _where(error, module_path)}


def _where(error: BaseException, module_path: str) -> str:
    """`tool.py, line 9, in helper`: the innermost frame in the tool's own file (where the
    tool raised, or called what raised); "" when the traceback never passes through it."""
    tool_file = os.path.abspath(module_path)
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if os.path.abspath(frame.filename) == tool_file
    ]
    if not frames:
        return ""
    return f"{os.path.basename(tool_file)}, line {frames[-1].lineno}, in {frames[-1].name}"


def _answer(answers, answer: dict) -> None:  # type: ignore[no-untyped-def, type-arg]
    sys.stdout.flush()
    sys.stderr.flush()  # the call's log lines reach the server before its answer
    try:
        text = json.dumps(answer, ensure_ascii=False, allow_nan=False, default=str)
    except (TypeError, ValueError) as error:
        text = json.dumps(
            {"raised": "TypeError", "message": f"the result is not JSON: {error}", "traceback": ""}
        )
    answers.write(text + "\n")
    answers.flush()


if __name__ == "__main__":
    sys.exit(main())
