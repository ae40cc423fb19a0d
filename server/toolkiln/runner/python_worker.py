"""The warm worker of a Python-module tool: imports the module once, then runs call after call.

Run as a script by the server, never imported by it: `python python_worker.py MODULE ENTRY`
(standard library only, so a worker starts in the time Python itself takes). The
module's folder is first on `sys.path` and the working directory, so it can import its
neighbours. Requests arrive on stdin, one JSON line each: `{"params": {...}}`. Each answer
is one JSON line on the original stdout: `{"returned": value}`, `{"raised": type,
"message": ..., "traceback": ...}` or `{"exited": code}`. The module's own prints go to
stderr, where the server reads log and progress lines as it does for any tool.
"""

import importlib.util
import json
import os
import sys
import traceback


def main() -> int:
    module_path, entry = sys.argv[1], sys.argv[2]
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # print() in the tool goes to stderr, never into the answers
    try:
        function = _load(module_path, "main" if entry == "main" else "execute")
    except BaseException as error:
        _answer(answers, _raised(error))
        return 1
    _answer(answers, {"ready": True})
    for line in sys.stdin:
        params = json.loads(line)["params"]
        try:
            answer = {"returned": function(**params) if entry == "execute(**)" else function(params)}
        except SystemExit as exit:
            answer = {"exited": exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)}
        except BaseException as error:
            answer = _raised(error)
        _answer(answers, answer)
        if "raised" in answer and answer["raised"] == "MemoryError":
            return 1  # a worker that ran out of memory may be broken: the server starts a new one
    return 0


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


def _raised(error: BaseException) -> dict[str, str]:
    frames = error.__traceback__.tb_next if error.__traceback__ else None  # from the tool's frame on
    lines = traceback.format_exception(type(error), error, frames)
    return {"raised": type(error).__name__, "message": str(error), "traceback": "".join(lines)}


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
