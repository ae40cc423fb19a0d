"""The tables of the shared state's sections of docs/benchmarks.md: tasks (benchmarks/tasks.py)
and answers relayed between replicas (benchmarks/relay.py)."""

from __future__ import annotations

from typing import Any

from benchmarks.markdown import table

Results = dict[str, Any]
TASK_STORES = {"sqlite": "SQLite", "redis": "Redis"}  # the task stores `benchmarks/tasks.py` measures


def tasks_table(tasks: Results) -> str:
    labels = {
        "plain_call": "plain `tools/call` (client without the tasks extension)",
        "task_create": "`tools/call` answered by a task (`CreateTaskResult`)",
        "task_get": "one `tasks/get` of a running task",
        "task_to_result": "a task created, then `tasks/get` back to back until its result",
    }
    rows, notes = [], []
    for store, figures in tasks.items():
        name = TASK_STORES.get(store, store)
        if "skipped" in figures:
            notes.append(f"{name}: not measured, {figures['skipped']}.")
            continue
        plain = figures["plain_call"]["p50_ms"]
        for variant, label in labels.items():
            f = figures[variant]
            rows.append(
                (
                    name,
                    label,
                    *(f"{f[k]:.2f}" for k in ("p50_ms", "p90_ms", "p99_ms")),
                    f"{f['p50_ms'] / plain:.2f}x",
                )
            )
        notes.append(
            f"{name}: the echo's task had ended by the poll number {figures['polls_to_result']:g} (median)."
        )
    intro = (
        "One `toolkiln serve --http` per store (its own state folder; Redis: a `redis-server` on loopback, "
        "started by the benchmark), 2026-07-28 JSON-RPC on one keep-alive connection each, the echo tool "
        "with `task: optional`; the stores take turns sample by sample, each sample one of every row. "
        "A task is answered once it is stored, before its script has run, so creating one costs less "
        "than a plain call; the run is paid for by the polls that follow.\n\n"
    )
    rendered = table(["store", "request", "p50 ms", "p90 ms", "p99 ms", "p50 / plain call"], rows)
    return intro + rendered + "\n" + "\n".join(f"- {note}" for note in notes) + "\n"


def relay_table(relay: Results) -> str:
    if "skipped" in relay:
        return f"Not measured: {relay['skipped']}.\n"
    steps = {
        "ask": "the first call, answered with the question (on A)",
        "retry": "the retry with the answer, to the result",
        "round_trip": "the whole round trip (first call + retry)",
    }
    variants = {"local": "local (retry on A)", "relayed": "relayed (retry on B)"}
    rows = []
    for step, label in steps.items():
        local = relay["local"][step]["p50_ms"]
        for variant, name in variants.items():
            f = relay[variant][step]
            rows.append(
                (
                    label,
                    name,
                    *(f"{f[k]:.2f}" for k in ("p50_ms", "p90_ms", "p99_ms")),
                    f"{f['p50_ms'] / local:.2f}x",
                )
            )
    intro = (
        "Two `toolkiln serve --http --stateless` replicas, A and B, sharing one `redis-server` on loopback "
        "(started by the benchmark), one secret file and one token, 2026-07-28 JSON-RPC on one keep-alive "
        "connection per replica. The tool is a shell script that asks one question (`ELICIT`) and prints "
        "the answer. Each sample calls it on A, which answers with the question (input required) while "
        "the script waits on A; the retry with the answer (`inputResponses` + `requestState`) goes to A "
        "(local) or to B (relayed: B relays the answer through Redis to A, whose script ends, and "
        "answers with A's outcome). The two variants take turns call by call.\n\n"
    )
    headers = ["request", "variant", "p50 ms", "p90 ms", "p99 ms", "p50 / local"]
    added = (
        f"- A relayed retry costs {relay['retry_added_ms']:+.2f} ms at p50 over a local one: some five "
        "Redis round trips (0.1-0.3 ms each on loopback), the answers and the outcome each written "
        "and read as JSON once more, and two server processes handing them on, on two cores shared "
        "with the client and Redis.\n"
    )
    return intro + table(headers, rows) + "\n" + added
