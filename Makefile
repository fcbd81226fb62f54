# Developer tasks for mneme. `make test` is the one command that runs every
# test, including the end-to-end ones against a real Ollama server.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
GO ?= go

.PHONY: test build run bench vet need-tmux

# scripts/ollama-bin.sh prints the ollama v0.6.5 binary, building it into
# ~/.cache/mneme-ci on first use (~4 min); the tests find it via MNEME_OLLAMA_BIN.
test: need-tmux
	@bin="$$(scripts/ollama-bin.sh)"; \
	echo "MNEME_OLLAMA_BIN=$$bin $(GO) test -count=1 -timeout 30m ./..."; \
	MNEME_OLLAMA_BIN="$$bin" $(GO) test -count=1 -timeout 30m ./...

build:
	$(GO) build -o bin/mneme .

run:
	$(GO) run .

bench:
	$(GO) test -run '^$$' -bench . ./...

vet:
	$(GO) vet ./...

# The terminal tests drive mneme through tmux.
need-tmux:
	@command -v tmux >/dev/null && exit 0; \
	if [[ "$$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then \
		echo "tmux is missing; installing it with apt-get"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y tmux; \
	else \
		echo "tmux is missing: the terminal tests need it (e.g. sudo apt-get install tmux)" >&2; \
		exit 1; \
	fi
