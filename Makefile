# seedforge: `make run` regenerates every dataset, `make test` runs the whole suite.
SWIFT ?= swift
OUT ?= out
# Seconds each fuzz target runs in `make fuzz` (`make test` runs each for FUZZ_TEST_SECONDS).
FUZZ_SECONDS ?= 600
FUZZ_TEST_SECONDS ?= 5
RELEASE_BIN := .build/release/seedforge
# Release builds link the Swift runtime and Foundation statically: measured in paired runs,
# 0.93x the CPU of the full cities pipeline at 240k and 0.96x of the 1M reference job, and
# 5 MiB less resident program memory (no relocation of a dozen shared libraries at start).
# The binary is larger (about 100 MB with its symbols); the C libraries stay shared.
RELEASE_FLAGS := -c release --static-swift-stdlib
# Every pipeline definition (test files beside them, *.test.yml, are not pipelines).
PIPELINES := $(filter-out %.test.yml,$(sort $(wildcard pipelines/*.yml)))

.PHONY: run deps build datasets lint validate test fuzz bench bench-instructions format format-check docs clean help

help:
	@echo "make run       install missing system packages, build (release), regenerate every dataset into $(OUT)/"
	@echo "make test      the whole test suite (unit and end-to-end)"
	@echo "make datasets  regenerate the datasets with the current build"
	@echo "make lint      check every pipeline definition without reading data"
	@echo "make validate  validate every pipeline's sources (the shipped fixtures are dirty on purpose: exit 1)"
	@echo "make fuzz      run each libFuzzer target (JSON, CSV, HTML, pipeline loader) for FUZZ_SECONDS (600); fails on a crash"
	@echo "make bench     seedforge vs DuckDB, jq, lxml and scipy cKDTree, in release mode (BENCH_SIZES=\"200k 1m 5m\" for more)"
	@echo "make bench-instructions  user-space instructions of the shipped cities' first run (callgrind); BASE=other/seedforge compares"
	@echo "make format    format every Swift file (swift format, .swift-format: 120 columns)"
	@echo "make docs      rewrite README.md's kinds reference from the kinds' specs (seedforge kinds --markdown)"
	@echo "make clean     remove build products and $(OUT)/"

run: deps datasets

deps:
	@scripts/bootstrap.sh

build: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product seedforge

datasets: build
	$(RELEASE_BIN) run $(PIPELINES) --out $(OUT)

lint: build
	$(RELEASE_BIN) lint $(PIPELINES)

validate: build
	$(RELEASE_BIN) validate $(PIPELINES)

test:
	@scripts/bootstrap.sh --browser
	@scripts/spark-setup.sh >/dev/null
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	.build/debug/seedforge test $(PIPELINES)
	scripts/fuzz.sh $(FUZZ_TEST_SECONDS)
	scripts/check-format.sh

docs:
	$(SWIFT) build --product seedforge
	.build/debug/seedforge kinds --markdown --readme README.md >README.md.new
	mv README.md.new README.md

fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS)

format:
	$(SWIFT) format --configuration .swift-format -i -r Sources Tests Benchmarks Fuzz Package.swift

format-check:
	scripts/check-format.sh

bench: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product seedforge
	$(SWIFT) build $(RELEASE_FLAGS) --product seedforge-query-bench
	python3 Benchmarks/run.py

# User-space instructions of the shipped cities' first run under callgrind (a figure the
# machine's load does not move); BASE=path/to/other/seedforge counts both and compares.
bench-instructions: deps
	scripts/bootstrap.sh --valgrind
	$(SWIFT) build $(RELEASE_FLAGS) --product seedforge
	python3 Benchmarks/instructions.py $(BASE) .build/release/seedforge

clean:
	rm -rf .build .build-fuzz $(OUT)
