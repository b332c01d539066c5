# DQS — the data quality service. `make run` and `make test` are the two
# commands a new user needs; both work on a machine with only Go and make.

TEMPORAL_VERSION := 1.5.1
TOOLS_DIR        ?= $(HOME)/.cache/dqs/tools
TEMPORAL         ?= $(TOOLS_DIR)/temporal-$(TEMPORAL_VERSION)/temporal
GO               ?= go
TEST_FLAGS       ?= -race -count=1 -timeout 30m

export DQS_TEMPORAL_CLI := $(TEMPORAL)

.PHONY: help build run test vet eval bench bench-small bench-duckdb bench-compare bench-go fuzz temporal-cli clean

help:
	@echo "make run           start Temporal (with its Web UI) and DQS (API + worker) on this machine"
	@echo "make test          vet and run every test (unit, workflow, integration)"
	@echo "make eval          classification (P/R/F1, false positives, calibration), CSV dialect detection,"
	@echo "                   anomaly detection and correction suggestions (precision and recall of the cells"
	@echo "                   fixed) on the labelled corpora in evaluation/; fails when a target is missed"
	@echo "make bench         profile 3M generated rows as CSV, JSON Lines and Parquet: MB/s and peak RSS"
	@echo "                   (the first run generates ~1.9 GB into $(HOME)/.cache/dqs/bench, once)"
	@echo "make bench-small   the same with 200,000 rows, for a quick check"
	@echo "make bench-duckdb  DuckDB's SUMMARIZE on the same files, the reference of the speed targets"
	@echo "                   (needs Node.js and npm; installs DuckDB's package into $(TOOLS_DIR), once)"
	@echo "make bench-compare check dqs's figures (nulls, min, max, mean, stddev, quartiles, distinct) against"
	@echo "                   DuckDB's exact ones on the same files; fails beyond the documented error"
	@echo "make bench-go      run the Go micro-benchmarks (go test -bench)"
	@echo "make fuzz          fuzz every reader of untrusted bytes for FUZZTIME each (default 10m) under a"
	@echo "                   memory limit; crashers are kept in readers/testdata/fuzz and replayed by make test"
	@echo "make build         build bin/dqs"
	@echo "make temporal-cli  install the pinned Temporal CLI into $(TOOLS_DIR)"

build:
	$(GO) build -o bin/dqs ./cmd/dqs

# The Temporal CLI is installed once into a cache outside the work tree.
temporal-cli: $(TEMPORAL)

$(TEMPORAL):
	@echo "Installing the Temporal CLI v$(TEMPORAL_VERSION) into $(dir $@) (a few minutes, once)…"
	@mkdir -p $(dir $@)
	GOBIN=$(abspath $(dir $@)) $(GO) install github.com/temporalio/cli/cmd/temporal@v$(TEMPORAL_VERSION)

run: build temporal-cli
	@TEMPORAL=$(TEMPORAL) ./scripts/run-dev.sh

vet:
	$(GO) vet ./...

test: temporal-cli vet
	$(GO) test $(TEST_FLAGS) ./...

# Accuracy of the engine on the committed, labelled corpora (see
# cmd/dqs-eval); `go run ./cmd/dqs-eval -regenerate` rewrites them.
eval:
	$(GO) run ./cmd/dqs-eval

# End-to-end throughput and peak RSS of `dqs profile` (cmd/dqs-bench). The
# first run generates 3,000,000 rows once into ~/.cache/dqs/bench (CSV
# ~590 MB, JSON Lines ~1.07 GB, Parquet ~270 MB: about 1.9 GB) and builds dqs
# there; later runs reuse the files. Flags: BENCH_FLAGS='-formats csv -rows N -dir DIR'.
# Then the PostgreSQL push-down scan against one SELECT count(*) of the same
# table (cmd/dqs-scanbench, docs/bench-scan.md): the first run creates a
# 10,000,000-row table (~1.3 GB) in the schema dqs_bench, later runs reuse
# it; without a reachable PostgreSQL it says so and passes. Flags:
# SCANBENCH_FLAGS='-pg URL -rows N -schema NAME -sample N' (-pg defaults to
# $DQS_TEST_POSTGRES_URL, else postgres://postgres@127.0.0.1:5432/test).
bench:
	$(GO) run ./cmd/dqs-bench $(BENCH_FLAGS)
	$(GO) run ./cmd/dqs-scanbench $(SCANBENCH_FLAGS)
	$(GO) run ./cmd/dqs-lineagebench $(LINEAGEBENCH_FLAGS)
	$(GO) test ./reports -run '^$$' -bench RenderAdvanced50Pages -benchtime 5x -benchmem
	GOMAXPROCS=1 $(GO) test ./standardize -run '^$$' -bench Cluster1M -benchtime 1x
	$(GO) test ./corrections -run '^$$' -bench . -benchtime 1x -benchmem

# Its own cache directory, so the 3M-row files are not regenerated after it.
bench-small:
	$(GO) run ./cmd/dqs-bench -rows 200000 -dir $(HOME)/.cache/dqs/bench-small $(BENCH_FLAGS)

# The reference the speed targets are stated against, on this machine:
# DuckDB's SUMMARIZE (column statistics, no classification) on the files
# `make bench` generated. Optional: it needs Node.js and npm, and installs
# the pinned DuckDB package once into the tools cache.
DUCKDB_VERSION := 1.5.6-r.1
DUCKDB_DIR     := $(TOOLS_DIR)/duckdb-node-$(DUCKDB_VERSION)

bench-duckdb: $(DUCKDB_DIR)/node_modules/@duckdb/node-api
	cp scripts/duckdb-summarize.mjs $(DUCKDB_DIR)/
	node $(DUCKDB_DIR)/duckdb-summarize.mjs $(HOME)/.cache/dqs/bench

# dqs's figures against DuckDB's exact ones on the same files, each within
# the error the engine documents (cmd/dqs-bench/compare.go says how the two
# readings map); fails on any disagreement. The script is copied next to
# the installed package so that Node.js finds @duckdb/node-api. Same BENCH_FLAGS
# as bench, e.g. BENCH_FLAGS='-rows 200000 -dir $(HOME)/.cache/dqs/bench-small'.
bench-compare: $(DUCKDB_DIR)/node_modules/@duckdb/node-api
	cp scripts/duckdb-figures.mjs $(DUCKDB_DIR)/
	$(GO) run ./cmd/dqs-bench -compare-duckdb $(DUCKDB_DIR)/duckdb-figures.mjs $(BENCH_FLAGS)

$(DUCKDB_DIR)/node_modules/@duckdb/node-api:
	@command -v npm >/dev/null || { echo "make bench-duckdb needs Node.js and npm"; exit 1; }
	mkdir -p $(DUCKDB_DIR)
	npm install --prefix $(DUCKDB_DIR) --no-save --no-audit --no-fund @duckdb/node-api@$(DUCKDB_VERSION)

bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Fuzzing (scripts/fuzz.sh): FUZZTIME=10m per target by default.
fuzz:
	GO=$(GO) ./scripts/fuzz.sh

clean:
	rm -rf bin
