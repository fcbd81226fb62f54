#!/usr/bin/env bash
# ollama-bin.sh prints the path of an ollama server binary (v0.6.5) for the
# end-to-end tests in internal/realollama, building it on first use.
#
#   1. $MNEME_OLLAMA_BIN, if set (it must then be an executable file);
#   2. ${XDG_CACHE_HOME:-$HOME/.cache}/mneme-ci/bin/ollama, if it exists;
#   3. otherwise it builds that file with `go install github.com/ollama/ollama@v0.6.5`
#      (CPU only, cgo; ~220 s on 2 cores with an empty Go cache).
#
# Only the path goes to stdout; progress and errors go to stderr.
set -euo pipefail

readonly version=v0.6.5
readonly module=github.com/ollama/ollama

die() { echo "ollama-bin.sh: $*" >&2; exit 1; }

if [[ -n "${MNEME_OLLAMA_BIN:-}" ]]; then
	[[ -f "$MNEME_OLLAMA_BIN" && -x "$MNEME_OLLAMA_BIN" ]] ||
		die "MNEME_OLLAMA_BIN=$MNEME_OLLAMA_BIN is not an executable file"
	echo "$MNEME_OLLAMA_BIN"
	exit 0
fi

bindir="${XDG_CACHE_HOME:-$HOME/.cache}/mneme-ci/bin"
bin="$bindir/ollama"

# `ollama --version` needs a running server and reports 0.0.0 for a binary
# built with go install, so check the module version recorded in the binary.
built_version() { go version -m "$1" 2>/dev/null | awk '$1 == "mod" && $2 == "'"$module"'" { print $3 }'; }

if [[ -x "$bin" ]]; then
	if ! command -v go >/dev/null; then
		echo "$bin" # cannot inspect it without go: trust the install path
		exit 0
	fi
	have="$(built_version "$bin")"
	if [[ "$have" == "$version" ]]; then
		echo "$bin"
		exit 0
	fi
	echo "ollama-bin.sh: $bin is ${have:-not a Go-built ollama}, want $version; rebuilding" >&2
fi

command -v go >/dev/null || die "go is not on PATH; cannot build $module@$version"
mkdir -p "$bindir"
echo "ollama-bin.sh: building $module@$version into $bindir (~4 min on a fresh machine)..." >&2
start=$SECONDS
# go install writes the binary only on success, so a failed build leaves no
# half-written file behind to be picked up next time.
if ! GOBIN="$bindir" CGO_ENABLED=1 go install "$module@$version" >&2; then
	die "building $module@$version failed (needs cgo and a C/C++ compiler; see the output above)"
fi
have="$(built_version "$bin")"
[[ "$have" == "$version" ]] || die "built $bin but it reports module version '${have:-unknown}', want $version"
echo "ollama-bin.sh: built $bin in $((SECONDS - start)) s" >&2
echo "$bin"
