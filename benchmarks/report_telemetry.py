"""The observability section of docs/benchmarks.md (benchmarks/telemetry.py's figures)."""

from __future__ import annotations

from typing import Any

from benchmarks.markdown import table

# (figure, label, limit in ms): issue 28's targets.
TELEMETRY_TARGETS = (
    ("metrics", "metrics on", 0.1),
    ("tracing_sampled_out", "tracing on, a sampler that records nothing", 0.2),
)


def telemetry_table(figures: dict[str, Any]) -> str:
    rows = [("telemetry off (the SDK's own middleware, no provider)", f"{figures['off_us']:.1f}", "-", "-")]
    servers = figures.get("servers", {})
    for key, label, limit in TELEMETRY_TARGETS:
        verdict = "met" if figures[key]["met"] else "NOT met"
        server = servers.get(key)
        rows.append(
            (
                label,
                f"{figures[key]['per_call_us']:.1f}",
                f"{figures[key]['cost_ms']:+.4f} (target +{limit:g}: {verdict})",
                f"{server['cpu_cost_ms']:+.3f} (p50 {server['p50_ms']:.2f} ms)" if server else "-",
            )
        )
    off = servers.get("off")
    note = (
        f"\nEnd to end, a stdio server with telemetry off used {off['server_cpu_ms_per_call']:.3f} ms of "
        f"CPU per call (p50 {off['p50_ms']:.2f} ms).\n"
        if off
        else ""
    )
    return (
        "The work one `tools/call` adds, measured in process on the code that runs per call "
        "(the request middleware and the runner's telemetry calls), in turns; then end to end "
        "on three stdio servers called in turns, as the server's CPU time per call.\n\n"
        + table(
            [
                "variant",
                "CPU µs per call (in process)",
                "cost ms per call",
                "server CPU ms per call, over off",
            ],
            rows,
        )
        + note
    )
