# roomcast — every developer command. `make run` and `make test` set everything up themselves.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PYTHON_VERSION := $(shell cat .python-version)
# Find python3.13 without machine-specific paths: on PATH, else through pyenv.
PYTHON := $(or $(shell command -v python$(PYTHON_VERSION) 2>/dev/null),$(shell pyenv which python$(PYTHON_VERSION) 2>/dev/null))
# The interpreter itself, not a pyenv shim: uv would take a shim for another interpreter each time.
PYTHON_REAL := $(if $(PYTHON),$(shell $(PYTHON) -c 'import sys; print(sys.executable)'))
PYTHON_BIN_DIR := $(dir $(PYTHON_REAL))

TOOLS := .tools
UV_VERSION := 0.13.8
SAM_CLI_VERSION := 1.170.0
CHECKOV_VERSION := 3.3.30
UV := $(TOOLS)/uv/bin/uv
SAM := $(TOOLS)/bin/sam
CHECKOV := $(TOOLS)/bin/checkov
VENV := .venv
PY := $(VENV)/bin/python
export PYTHONPATH := $(CURDIR)/layers/shared:$(CURDIR)/tools:$(CURDIR)/glue_jobs
export UV_PYTHON_DOWNLOADS := never
export SAM_CLI_TELEMETRY := 0
# aws-sam-cli lives in its own environment (it pins its own boto3 and pydantic).
export UV_TOOL_DIR := $(CURDIR)/$(TOOLS)/uv-tools
export UV_TOOL_BIN_DIR := $(CURDIR)/$(TOOLS)/bin

.PHONY: compact analytics demo help setup run browser test bytecode lint format typecheck openapi glue-scripts sdk-models template-check template-inputs template-lint template-validate template-scan template-build test-unit test-integration test-e2e test-security bench capacity soak smoke invoke api-key build deploy clean

help: ## list the commands
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

$(TOOLS)/.python-ok:
	@if [ -z "$(PYTHON)" ]; then \
	  echo "error: Python $(PYTHON_VERSION) is required (see .python-version) and was not found."; \
	  echo "       Install it (e.g. 'pyenv install $(PYTHON_VERSION)' or your OS package) and put python$(PYTHON_VERSION) on PATH."; \
	  exit 1; fi
	@mkdir -p $(TOOLS) && touch $@

$(UV): | $(TOOLS)/.python-ok
	$(PYTHON_REAL) -m venv $(TOOLS)/uv
	$(TOOLS)/uv/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

# --compile-bytecode: where PYTHONDONTWRITEBYTECODE is set (as on the machine the tests were timed
# on), no process would ever cache its imports' bytecode, and every function worker and subprocess
# of the tests would compile boto3, pydantic and powertools again (their import: 0.8 s, 0.45 s
# with bytecode).
$(VENV)/.synced: $(UV) pyproject.toml uv.lock
	$(UV) sync --frozen --compile-bytecode --python $(PYTHON_REAL)
	@touch $@

$(SAM): | $(UV)
	$(UV) tool install --quiet --python $(PYTHON_REAL) aws-sam-cli==$(SAM_CLI_VERSION)

# checkov in its own environment too (it pins many dependencies); the stamp reinstalls on a version bump.
$(TOOLS)/.checkov-$(CHECKOV_VERSION): | $(UV)
	$(UV) tool install --quiet --force --python $(PYTHON_REAL) checkov==$(CHECKOV_VERSION)
	@touch $@

setup: $(VENV)/.synced $(SAM) $(TOOLS)/.checkov-$(CHECKOV_VERSION) ## install the project's tools (.venv and .tools/), nothing global

run: $(VENV)/.synced bytecode ## start the local stack on http://127.0.0.1:3000 (ROOMCAST_PORT to change)
	$(PY) -m roomcast_dev

demo: $(VENV)/.synced ## with `make run` going: one message through PUSH retries and a PULL nack, live
	$(PY) -m roomcast_dev.demo

api-key: $(VENV)/.synced ## make api-key TENANT=<name> [STACK=<deployed stack>]: print a new API key
	@if [ -z "$(TENANT)" ]; then echo "usage: make api-key TENANT=<name> [STACK=<deployed stack name>]"; exit 2; fi
	@$(PY) -m roomcast_dev.keys --tenant "$(TENANT)" $(if $(STACK),--stack-name "$(STACK)")

compact: $(VENV)/.synced ## make compact [DATE=YYYY-MM-DD]: compact the running local stack's delivery log
	$(PY) -m roomcast_dev.glue_local compact $(if $(DATE),--date $(DATE))

analytics: $(VENV)/.synced ## make analytics [DATE=YYYY-MM-DD] [OUT=dir]: delivery analytics (OUT: Parquet, report.html, table)
	$(PY) -m roomcast_dev.glue_local analytics $(if $(DATE),--date $(DATE)) $(if $(OUT),--out $(OUT))

lint: $(VENV)/.synced ## ruff lint and format check
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.synced ## apply ruff's formatting and fixes
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

typecheck: $(VENV)/.synced ## mypy (strict)
	$(VENV)/bin/mypy layers/shared functions tools tests bench glue_jobs clients/python/src clients/cli/src

# openapi.json and glue_jobs/bundled/ are committed (what a plain `sam build` ships) and
# template-check fails while they are stale (docs/decisions/0035-committed-build-inputs.md).
openapi: $(VENV)/.synced ## merge every function's routes into the docs function's openapi.json (committed)
	$(PY) -m roomcast_dev.openapi

glue-scripts: $(VENV)/.synced ## write the Glue jobs' one-file script, glue_jobs/bundled/ (committed)
	$(PY) -m roomcast_dev.glue_assets

# The clients' models and enumerations, generated from openapi.json (merged first): the SDK's
# _generated/, the CLI's _enums.py, the console's enums.js (committed, checked by template-inputs;
# docs/decisions/0044-generated-sdk-models.md).
sdk-models: $(VENV)/.synced openapi ## generate the SDK's models and the clients' enumerations from openapi.json (committed)
	$(PY) -m roomcast_dev.sdk_models

template-check: template-inputs template-lint template-validate template-scan template-build ## committed build inputs current, cfn-lint, sam validate --lint, checkov (0 failed), sam build (no Docker)

# template-check's steps are independent of each other: `make test` runs them side by side.
template-inputs: $(VENV)/.synced
	$(PY) -m roomcast_dev.openapi --check
	$(PY) -m roomcast_dev.glue_assets --check
	$(PY) -m roomcast_dev.sdk_models --check

template-lint: $(VENV)/.synced
	$(VENV)/bin/cfn-lint template.yaml

template-validate: $(SAM)
	$(SAM) validate --lint

template-scan: $(TOOLS)/.checkov-$(CHECKOV_VERSION)
	$(CHECKOV) --file template.yaml --framework cloudformation --compact --quiet --skip-download

template-build: $(SAM)
	PATH="$(PYTHON_BIN_DIR):$$PATH" $(SAM) build --build-dir .aws-sam/build --cache-dir .aws-sam/cache >/dev/null
	@echo "sam build: ok"

test-unit: $(VENV)/.synced ## unit tests (pure logic, no network)
	$(PY) -m pytest tests/unit -q

test-integration: $(VENV)/.synced ## handlers in-process against moto
	$(PY) -m pytest tests/integration -q

test-e2e: $(VENV)/.synced ## the local stack over real HTTP
	$(PY) -m pytest tests/e2e -q

test-security: $(VENV)/.synced ## the security regression suite: forged receipts, hostile bodies, races, HTTP framing, SSRF
	$(PY) -m pytest -m security -q

# First of all (before the environment is built): a machine that cannot have a browser hears so
# within seconds (tools/roomcast_dev/browser.py).
browser: | $(TOOLS)/.python-ok ## find or provide the headless chromium the console's tests drive
	@decision=$$($(PYTHON_REAL) tools/roomcast_dev/browser.py); \
	if [ "$$decision" = download ]; then \
	  $(MAKE) --no-print-directory $(VENV)/.synced && $(PY) -m playwright install chromium; fi

# The tools are installed first, one at a time; then the static checks run side by side (each is
# single-threaded, ~110 s one after another on two cores), then every test tier.
test: browser setup bytecode ## every check: lint, types, template, all test tiers
	$(MAKE) --no-print-directory -j3 --output-sync=target lint typecheck template-check
	$(PY) -m pytest -q -n 3 --dist loadgroup

# Our own modules' bytecode, written whatever PYTHONDONTWRITEBYTECODE says (the venv's is written
# by uv sync): the local stack's function workers and the tests' subprocesses import it. Not the
# Glue jobs' one-file script: Glue runs it as it is, and its folder holds it alone.
bytecode: $(VENV)/.synced
	$(PY) -m compileall -q -j 0 -x 'glue_jobs/bundled/' layers functions tools glue_jobs clients/python/src clients/cli/src bench tests >/dev/null

bench: $(VENV)/.synced ## benchmarks, each next to a reference measured in the same run
	$(PY) -m bench

capacity: $(VENV)/.synced ## each scenario's sustainable rate and the limit that binds first (docs/scaling.md)
	$(PY) -m bench.capacity

soak: $(VENV)/.synced ## make soak [SOAK_SECONDS=300]: faults and killed workers; prints the ledger (docs/soak.md)
	SOAK_SECONDS=$${SOAK_SECONDS:-300} $(PY) -m pytest tests/soak -q

invoke: $(VENV)/.synced ## make invoke FUNCTION=<logical id> EVENT=events/<file>.json: sam local invoke without Docker, against `make run`'s stack
	@if [ -z "$(FUNCTION)" ] || [ -z "$(EVENT)" ]; then echo "usage: make invoke FUNCTION=<logical id, e.g. PublishFunction> EVENT=events/<file>.json"; exit 2; fi
	@$(PY) -m roomcast_dev.invoke "$(FUNCTION)" "$(EVENT)"

smoke: $(VENV)/.synced ## make smoke with ROOMCAST_URL, ROOMCAST_API_KEY [ROOMCAST_RECEIVER_URL]: black-box checks of any running stack (docs/deploy.md)
	ROOMCAST_SMOKE=1 $(PY) -m pytest tests/smoke -q -p no:cacheprovider

build: $(SAM) openapi glue-scripts sdk-models ## sam build (for deployment), its committed inputs regenerated first
	PATH="$(PYTHON_BIN_DIR):$$PATH" $(SAM) build

deploy: build ## sam deploy --guided: the functions, the docs and the Glue scripts (needs AWS credentials)
	$(SAM) deploy --guided

clean: ## remove generated files (keeps .venv and .tools)
	rm -rf .aws-sam .local .pytest_cache .mypy_cache .ruff_cache
