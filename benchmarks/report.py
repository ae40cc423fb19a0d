"""The results as docs/benchmarks.md (targets first, then every figure) and a PNG chart."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.catalog_search import render_catalog_search
from benchmarks.markdown import join, table
from benchmarks.oauth import oauth_table
from benchmarks.report_state import TASK_STORES, relay_table, tasks_table
from benchmarks.report_steps import steps_table
from benchmarks.report_telemetry import TELEMETRY_TARGETS, telemetry_table

Results = dict[str, Any]
# Hand-written: what the profiles found, and what remains.
ANALYSIS = Path(__file__).with_name("analysis.md")

METHOD = """\
- **floor**: the echo script spawned from Python per call (`subprocess.Popen`, exit awaited
  on a pidfd), no MCP; beside it, the reference's own way of running it (`anyio.run_process`),
  no MCP either. **reference**: `benchmarks/reference_server.py`, a minimal server on
  the SDK's low-level `Server` that runs the echo script per call (with
  `anyio.run_process`), over stdio and over the SDK's `streamable_http_app` on uvicorn; it
  lists the tools of the same compiled config as toolkiln (`--tools`: name, title,
  description, input schema and hints, as read), 10 or 1,000. **toolkiln**: `toolkiln
  serve` with its defaults (audit log on; over HTTP the bearer token and Host/Origin
  checks; at most 2 tool processes per core) on a compiled config of 10 tools (calls) or
  10 and 1,000 tools (cold start). **fastmcp**: `benchmarks/fastmcp_server.py`, the
  framework a user would pick instead (FastMCP from PyPI, in the bench extra): the same
  echo, run with `anyio.run_process`, and the same listed tools. **floor** of a cold
  start: a Python that imports the SDK's server modules (GC paused) and exits.
- The client is the SDK's own `mcp.Client` (handshake era, `mode="legacy"`) in the
  benchmark's process; over HTTP it keeps one session. Every call's answer is checked.
- What a ratio compares is measured in the same run, interleaved, because the machine is
  noisy: for `tools/call` every round starts all the servers and takes them in turn call
  by call (throughput: burst of 50 calls by burst), the order rotating; cold starts take
  the servers in turn, start by start. A figure is the median over rounds, and a ratio
  divides the medians shown. "Server CPU ms per call" is the server process's own user +
  system time over the round's calls (its tools' time aside): the work each server does
  per call, which a busy machine disturbs far less than latency.
- Cold start is process spawn to the first `tools/list` answer, handshake included, after
  one unmeasured start of each server. Both the reference and toolkiln list 10 tools, then
  1,000; a cold start ratio divides toolkiln's by the reference's with as many tools.
- Discovery and build are timed as whole `toolkiln` processes. Hot reload: `serve --watch`
  over stdio; the time from writing an edited `run.sh` to the client's `tools/list`
  showing the new description, the client listing again on each `tools/list_changed`
  notification. The flood reads the
  server's peak RSS (`VmHWM` in `/proc/<pid>/status`) after a warm-up call and again
  after a tool wrote 1 GB (10^9 bytes) to stdout; toolkiln keeps the first 256 KiB.
- PYTHONDONTWRITEBYTECODE is removed from the environment of every measured process:
  users' machines write `.pyc` files, and without them every start of an editable
  install compiles toolkiln from source.
"""


@dataclass(frozen=True)
class Target:
    """One target of issue 6: a figure drawn from the results, held against a limit."""

    text: str
    section: str
    figure: Callable[[Results, Results], float]  # (section's figures, settings) -> value
    limit: float
    compare: Callable[[float, float], bool]
    unit: str = "x"
    # The best a server doing no work of its own reaches on this figure in the same run,
    # shown beside a MISS when that floor misses the limit too.
    floor: Callable[[Results], float] | None = None


def _ratio(served: str, field: str) -> Callable[[Results, Results], float]:
    """toolkiln's figure over the reference's, both serving `served` (e.g. "stdio_10")."""

    def figure(figures: Results, settings: Results) -> float:
        key = served.format(**settings)
        return float(figures[f"toolkiln_{key}"][field] / figures[f"reference_{key}"][field])

    return figure


def _value(key: str, field: str) -> Callable[[Results, Results], float]:
    return lambda figures, settings: float(figures[key][field])


def _figure(key: str) -> Callable[[Results, Results], float]:
    """A figure of the section itself (a ratio, a difference)."""
    return lambda figures, settings: float(figures[key])


# The `tools/call` p50 targets' limits, by transport (the floor of them is in the calls' section).
P50_LIMITS = {"stdio": 0.9, "http": 0.95}


def _bare_server(calls: Results, transport: str) -> tuple[float, float]:
    """(SDK's share, that share with a bare spawn) of the reference's p50 call, in ms: the
    reference's call less its process run alone is what the SDK costs (protocol, transport,
    client); with a bare spawn added it is a server that does nothing else."""
    share = calls[f"reference_{transport}_10"]["p50_ms"] - calls["process"]["p50_ms"]
    return share, share + calls["floor"]["p50_ms"]


def _bare_ratio(transport: str) -> Callable[[Results], float]:
    return lambda calls: _bare_server(calls, transport)[1] / calls[f"reference_{transport}_10"]["p50_ms"]


TARGETS = [
    # Issue 27's goals: toolkiln against the plain SDK server, measured in the same run.
    Target("stdio `tools/call` p50, toolkiln / reference", "calls",
           _ratio("stdio_10", "p50_ms"), P50_LIMITS["stdio"], operator.le, floor=_bare_ratio("stdio")),
    Target("stdio throughput (8 outstanding), toolkiln / reference", "calls",
           _ratio("stdio_10", "throughput_per_s"), 1.3, operator.ge),
    Target("HTTP `tools/call` p50, toolkiln / reference", "calls",
           _ratio("http_10", "p50_ms"), P50_LIMITS["http"], operator.le, floor=_bare_ratio("http")),
    Target("HTTP throughput (8 outstanding), toolkiln / reference", "calls",
           _ratio("http_10", "throughput_per_s"), 1.1, operator.ge),
    Target("stdio cold start with 1,000 tools, toolkiln / reference", "cold_start",
           _ratio("stdio_{served_tools}", "median_ms"), 0.8, operator.le),
    Target("HTTP cold start with 1,000 tools, toolkiln / reference", "cold_start",
           _ratio("http_{served_tools}", "median_ms"), 1.1, operator.le),
    Target("warm Python `execute()` tool p50 / shell echo p50", "python_worker",
           _value("warm", "ratio"), 1.2, operator.le),
    Target("`toolkiln discover`, 1,000 unchanged tools (whole process)", "discovery",
           _value("unchanged_mixed", "median_s"), 0.3, operator.lt, " s"),
    Target("cold `toolkiln discover` of 1,000 help-json tools", "discovery",
           _value("cold_help_json", "median_s"), 3.0, operator.lt, " s"),
    Target("server peak RSS growth during a 1 GB flood, stdio", "flood",
           _value("toolkiln_stdio_10", "growth_mb"), 50, operator.lt, " MB"),
    Target("server peak RSS growth during a 1 GB flood, HTTP", "flood",
           _value("toolkiln_http_10", "growth_mb"), 50, operator.lt, " MB"),
    Target("a watched edit visible in a client's tool list (median)", "watch",
           _value("edit_to_list", "median_s"), 0.5, operator.lt, " s"),
    *(Target(f"creating a task p50 / a plain call p50, {name} store", "tasks",
             _value(store, "create_ratio"), 1.5, operator.le) for store, name in TASK_STORES.items()),
    *(Target(f"a task to its result (created, polled back to back) / a plain call, {name}", "tasks",
             _value(store, "to_result_ratio"), 2.5, operator.le) for store, name in TASK_STORES.items()),
    # What a client feels: a question answered through another replica costs at most half
    # again the round trip through the same one; and the hop itself (some five Redis round
    # trips, ~0.1-0.3 ms each, and two processes handing the answer on) less than one more
    # plain request (a `tasks/get`, ~5.5 ms p50 here).
    Target("a question answered through the other replica: round trip p50, relayed / local", "relay",
           _figure("round_trip_ratio"), 1.5, operator.le),
    Target("what relaying the answers adds to the retry, p50 (relayed - local)", "relay",
           _figure("retry_added_ms"), 5, operator.le, " ms"),
    # Issue 28: OAuth validation of a cached-key JWT per call.
    Target("OAuth: what its check adds to a call (ES256 JWT, key cached), over the shared token",
           "oauth", _value("guard_oauth", "over_token_us"), 200, operator.le, " µs"),
    # Issue 28: what turning observability on costs a call.
    *(Target(f"per call, {label}, over telemetry off", "telemetry",
             _value(key, "cost_ms"), limit, operator.le, " ms")
      for key, label, limit in TELEMETRY_TARGETS),
]  # fmt: skip


def check_targets(results: Results) -> list[tuple[str, str, str, str]]:
    """(target, limit, measured, status) for each target."""
    rows = []
    for target in TARGETS:
        sign = "at most" if target.compare is operator.le else "under"
        sign = "at least" if target.compare is operator.ge else sign
        limit = f"{sign} {target.limit:g}{target.unit}"
        if target.section not in results:
            rows.append((target.text, limit, "-", "not measured in this run"))
        else:
            try:
                value = target.figure(results[target.section], results["meta"]["settings"])
            except KeyError:  # a part of the section was skipped (it says why)
                rows.append((target.text, limit, "-", "skipped in this run"))
                continue
            status = "PASS" if target.compare(value, target.limit) else "**MISS**"
            status += _below_floor(target, results[target.section]) if status != "PASS" else ""
            rows.append((target.text, limit, f"{value:.3g}{target.unit}", status))
    return rows


def _below_floor(target: Target, figures: Results) -> str:
    try:
        floor = target.floor(figures) if target.floor else None
    except KeyError:  # the floor's own variants were not measured
        return ""
    if floor is None or target.compare(floor, target.limit):
        return ""
    return f" (its floor: {floor:.3g}{target.unit}, a server doing nothing but the SDK and a bare spawn)"


def render_markdown(results: Results, chart: str | None) -> str:
    meta = results["meta"]
    parts = [
        "# Benchmarks\n",
        f"Generated by `{meta['command']}` on {meta['date']} in {meta['duration_s']:g} s; "
        "the figures are this one run's (issue 6). Absolute times depend on the machine; "
        "the ratios compare variants measured in the same run.\n",
        "## Targets\n",
        table(["target", "limit", "measured", "status"], check_targets(results)),
    ]
    if "calls" in results:
        parts += ["## `tools/call` of a trivial echo tool\n", _calls_table(results["calls"], meta)]
    if "steps" in results:
        parts += ["## What each step of a call costs\n", steps_table(results["steps"])]
    if "cold_start" in results:
        parts += [
            "## Cold start: spawn to the first `tools/list` answer\n",
            _cold_table(results["cold_start"]),
        ]
    if "confinement" in results:
        parts += [
            "## Containment and confinement: a call's process, by Popen, by the spawner, in bubblewrap\n",
            _confinement_table(results["confinement"]),
        ]
        parts += _measured_alone(results, "confinement")
    if "discovery" in results:
        parts += ["## Discovery and build of 1,000 generated tools\n", _seconds_table(results["discovery"])]
    if "flood" in results:
        parts += ["## Memory while a tool writes 1 GB to stdout\n", _flood_table(results["flood"])]
    if "python_worker" in results:
        parts += ["## A Python `execute()` tool on a warm worker\n", _python_table(results["python_worker"])]
    if "watch" in results:
        parts += ["## Hot reload: `serve --watch`\n", _seconds_table(results["watch"])]
    if "tasks" in results:
        parts += ["## Tasks: creating and polling one against a plain call\n", tasks_table(results["tasks"])]
        parts += _measured_alone(results, "tasks")
    if "oauth" in results:
        parts += ["## OAuth: an access token checked per request\n", oauth_table(results["oauth"])]
        parts += _measured_alone(results, "oauth")
    if "telemetry" in results:
        parts += [
            "## Observability: what metrics and tracing cost a call\n",
            telemetry_table(results["telemetry"]),
        ]
        parts += _measured_alone(results, "telemetry")
    if "relay" in results:
        parts += ["## Replicas: an answer relayed to the replica that asked\n", relay_table(results["relay"])]
        parts += _measured_alone(results, "relay")
    if "catalog_search" in results:
        parts += ["## Big catalogs: search mode\n", render_catalog_search(results["catalog_search"])]
        parts += _measured_alone(results, "catalog_search")
    parts.append(ANALYSIS.read_text())
    if chart:
        parts += ["## Chart\n", f"![tools/call latency and cold start per variant]({chart})\n"]
    parts += ["## Machine and versions\n", _machine(meta), "## How it is measured\n", METHOD]
    return "\n".join(parts)


def _measured_alone(results: Results, name: str) -> list[str]:
    """The line of a section measured on its own (`--only NAME --merge`), merged into this run."""
    run = results.get(f"{name}_run")
    if run is None:
        return []
    return [f"Measured on its own by `{run['command']}` on {run['date']} at commit {run['commit']}.\n"]


def _confinement_table(figures: Results) -> str:
    if "skipped" in figures:
        return f"Not measured: {figures['skipped']}.\n"
    labels = {
        "call_unconfined": "echo, unconfined, started by Popen (every call before the spawner)",
        "call_contained": "echo, default containment (the spawner: nothing outlives the call or the server)",
        "call_confined": "echo, confined, filesystem open (PID namespace, hidden state folder)",
        "call_confined_strict": "echo, the full fence: read-only, no network, PID namespace (mode required)",
        "call_confined_strict_bwrap_per_call": "echo, the full fence, a bubblewrap per call (before runners)",
        "probe_unconfined": "`--help` probe, unconfined",
        "probe_confined": "`--help` probe, confined (no network, read-only, empty home)",
    }
    rows = []
    for name, label in labels.items():
        if name not in figures:  # a run from before the variant existed
            continue
        cost, target = figures[name].get("cost_ms"), "-"
        if cost is not None:
            verdict = "met" if figures[name]["met"] else "NOT met"
            target = f"{cost:+.2f} (target +{figures[name]['target_ms']:.0f}: {verdict})"
        rows.append((label, f"{figures[name]['p50_ms']:.2f}", target))
    rows += [
        ("cost per confined call (p50)", f"+{figures['call_cost_ms']:.2f}", "-"),
        ("cost per probe (p50)", f"+{figures['probe_cost_ms']:.2f}", "-"),
    ]
    return table(["process (run_process, start to exit)", "p50 ms", "over a Popen call"], rows)


def _calls_table(calls: Results, meta: Results) -> str:
    floor = calls.get("floor", {}).get("p50_ms")
    rows = []
    for figures in calls.values():
        reference = calls.get(f"reference_{figures['transport']}_10")
        rows.append(
            (
                figures["label"],
                *(f"{figures[name]:.2f}" for name in ("p50_ms", "p90_ms", "p99_ms")),
                f"{figures['p50_ms'] - floor:+.2f}" if floor else "-",
                f"{figures['p50_ms'] / reference['p50_ms']:.2f}x" if reference else "-",
                f"{figures['throughput_per_s']:.0f}",
                f"{figures['throughput_per_s'] / reference['throughput_per_s']:.2f}x" if reference else "-",
                f"{figures['server_cpu_ms_per_call']:.2f}" if "server_cpu_ms_per_call" in figures else "-",
            )
        )
    settings = meta["settings"]
    return (
        _floor_of_calls(calls)
        + f"{settings['rounds']} rounds, each: 10 warm-up calls, {settings['calls']} sequential calls "
        "(p50/p90/p99 per round; the figures are medians of rounds), then calls with 8 outstanding "
        "(throughput); the variants take turns call by call.\n\n"
        + table(
            ["variant", "p50 ms", "p90 ms", "p99 ms", "p50 - floor ms", "p50 / reference",
             "calls/s, 8 outstanding", "/ reference", "server CPU ms per call"],
            rows,
        )
    )  # fmt: skip


def _floor_of_calls(calls: Results) -> str:
    """What the p50 targets leave toolkiln: the reference's call less its process run is
    the SDK's share (protocol, transport, client); that share plus a bare spawn is a server
    that does nothing else, and the limit times the reference's p50, less that, is what
    toolkiln may spend on everything it does beyond it."""
    if "process" not in calls or "floor" not in calls:
        return ""
    run, spawn = calls["process"]["p50_ms"], calls["floor"]["p50_ms"]
    lines = []
    for transport, limit in P50_LIMITS.items():
        reference = calls.get(f"reference_{transport}_10")
        if reference is None:
            continue
        share, bare = _bare_server(calls, transport)
        budget = limit * reference["p50_ms"] - bare
        lines.append(
            f"- {transport}: the reference's share {share:.2f} ms; with a bare spawn {bare:.2f} ms = "
            f"{bare / reference['p50_ms']:.2f}x the reference; at most {limit:g}x leaves "
            f"{budget * 1000:+.0f} µs for all of toolkiln's own work a call"
        )
    return (
        f"**The floor of the p50 targets.** The reference's process run alone (`anyio.run_process`, "
        f"{run:.2f} ms) against its whole call gives the SDK's share of a call (protocol, transport, "
        f"client); that share with a bare spawn ({spawn:.2f} ms) is a server doing nothing else:\n\n"
        + "\n".join(lines)
        + "\n\n"
    )


def _cold_table(cold: Results) -> str:
    rows = []
    for key, figures in cold.items():
        reference = cold["_".join(["reference", *key.rsplit("_", 2)[1:]])]["median_ms"]  # as many tools
        ratio = f"{figures['median_ms'] / reference:.2f}x"
        rows.append((figures["label"], f"{figures['median_ms']:.0f}", ratio, join(figures["rounds_ms"])))
    return table(["server", "median ms", "/ reference", "rounds ms"], rows)


def _seconds_table(figures: Results) -> str:
    rows = [(f["label"], f"{f['median_s']:.3f}", join(f["rounds_s"])) for f in figures.values()]
    return table(["run", "median s", "rounds s"], rows)


def _python_table(python: Results) -> str:
    rows = [
        (
            f["label"],
            *(f"{f[name]:.2f}" for name in ("p50_ms", "p90_ms", "p99_ms")),
            f"{f.get('ratio', 1):.2f}x",
        )
        for f in python.values()
    ]
    return (
        "One toolkiln server (stdio) serves the three tools; each round calls them in turn, call "
        "by call, after 10 warm-up calls of each.\n\n"
        + table(["tool", "p50 ms", "p90 ms", "p99 ms", "p50 / shell echo"], rows)
    )


def _flood_table(flood: Results) -> str:
    rows = [
        (
            f["label"],
            f"{f['peak_before_mb']:g}",
            f"{f['peak_after_mb']:g}",
            f"{f['growth_mb']:g}",
            f"{f['seconds']:g}",
        )
        for f in flood.values()
    ]
    headers = ["server", "peak RSS before MB", "peak RSS after MB", "growth MB", "flood call s"]
    return table(headers, rows)


def _machine(meta: Results) -> str:
    machine, versions, load = meta["machine"], meta["versions"], meta.get("load_average", {})
    return (
        f"- CPU: {machine['cpu']}, {machine['cores']} cores; RAM {machine['ram_gb']:g} GiB; "
        f"Linux {machine['kernel']}\n"
        f"- Python {versions['python']}, mcp {versions['mcp']}, toolkiln {versions['toolkiln']} "
        f"at commit {versions['commit']}\n"
        f"- Date {meta['date']}; command `{meta['command']}`; settings {meta['settings']}\n"
        f"- Seconds per measurement: {meta.get('seconds', {})}\n"
        f"- Load average (1 min) at the start {load.get('start', '?')}, at the end {load.get('end', '?')}: "
        "anything else running on the machine adds noise to the absolute figures\n"
    )


def draw_chart(results: Results, path: Path) -> None:
    """Left: each call variant's latency distribution; right: cold start per server."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, (calls_axis, start_axis) = pyplot.subplots(1, 2, figsize=(13, 4.8), layout="constrained")
    calls = list(results.get("calls", {}).values())[::-1]
    calls_axis.bxp([f["box_ms"] for f in calls], vert=False, showfliers=False, widths=0.6)
    calls_axis.set_yticks(range(1, len(calls) + 1), [f["label"] for f in calls])
    calls_axis.set_xlabel("tools/call latency, ms (box: p25-p75, whiskers: p1-p99)")
    calls_axis.set_xlim(left=0)
    starts = list(results.get("cold_start", {}).values())[::-1]
    bars = start_axis.barh([f["label"] for f in starts], [f["median_ms"] for f in starts], color="tab:orange")
    start_axis.bar_label(bars, fmt="%.0f ms", padding=3)
    start_axis.set_xlabel("cold start: spawn to first tools/list answer, ms (median)")
    start_axis.margins(x=0.15)
    figure.suptitle(
        f"toolkiln benchmarks, {results['meta']['date'][:10]} ({results['meta']['machine']['cpu']})"
    )
    figure.savefig(path, dpi=110)
    pyplot.close(figure)
