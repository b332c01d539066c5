# DQS — the data quality service. `make run` and `make test` are the two
# commands a new user needs; both work on a machine with only Go and make.

TEMPORAL_VERSION := 1.5.1
TOOLS_DIR        ?= $(HOME)/.cache/dqs/tools
TEMPORAL         ?= $(TOOLS_DIR)/temporal-$(TEMPORAL_VERSION)/temporal
GO               ?= go
TEST_FLAGS       ?= -race -count=1 -timeout 30m

export DQS_TEMPORAL_CLI := $(TEMPORAL)

.PHONY: help build run test vet bench temporal-cli clean

help:
	@echo "make run           start Temporal (with its Web UI) and DQS (API + worker) on this machine"
	@echo "make test          vet and run every test (unit, workflow, integration)"
	@echo "make bench         run the benchmarks"
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

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
